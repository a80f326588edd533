import type { ApprovalSettings } from '#libs/invocation';

/** Host names a browser on this machine uses; only these are trusted to build a link without `publicUrl`. */
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i;

/**
 * Where a client's user finds the approval page: under `publicUrl` when it is configured, else on
 * the loopback address the client itself used (development), else nowhere: a `Host` header is not
 * trusted to name a public address (it would let a request choose where people are sent).
 */
export function approvalPageOf(
  publicUrl: string | undefined,
  adminPath: string,
): NonNullable<ApprovalSettings['pageOf']> {
  return (headers) => {
    if (publicUrl) return `${publicUrl}${adminPath}`;
    const host = headers.host;
    return typeof host === 'string' && LOOPBACK_HOST.test(host) ? `http://${host}${adminPath}` : undefined;
  };
}
