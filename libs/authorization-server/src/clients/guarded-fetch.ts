import type { Agent } from 'undici';
import {
  classifyAddress,
  guardedAgent,
  OutboundError,
  outboundFetch,
  OutboundPolicies,
  type OutboundPolicy,
} from '#libs/security';

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;

/** Why a guarded fetch was refused or failed, in words a client's developer can act on. */
export class GuardedFetchError extends Error {}

export interface GuardedFetchOptions {
  /** Hosts that may resolve to non-public addresses (and be fetched over http); an address listed is reached whatever it is. */
  allowHosts: ReadonlySet<string>;
  /** Extra trusted certificates (PEM). */
  ca: string | undefined;
}

/** The policy and agent of each options object (the resolved options live as long as the host). */
const guards = new WeakMap<GuardedFetchOptions, { policy: OutboundPolicy; dispatcher: Agent }>();

function guardOf(options: GuardedFetchOptions): { policy: OutboundPolicy; dispatcher: Agent } {
  let guard = guards.get(options);
  if (!guard) {
    const policy = OutboundPolicies.clientMetadata(options.allowHosts);
    guard = { policy, dispatcher: guardedAgent(policy, options.ca ? { ca: options.ca } : undefined) };
    guards.set(options, guard);
  }
  return guard;
}

/**
 * GETs a JSON document from a URL a stranger chose (a Client ID Metadata Document), guarded
 * against server-side request forgery (`OutboundPolicies.clientMetadata`): HTTPS only; every
 * address its host resolves to, when connecting, must be public (unless the host is allowed, and
 * a cloud metadata address never but by address); no redirects; at most 64 KiB, the whole answer
 * within 5 s. What the stranger is told names no address their URL's name resolved to, and
 * nothing of why a host could not be reached (the host logs it): the fetch is no probe of the
 * host's network.
 */
export async function guardedFetchJson(
  url: URL,
  options: GuardedFetchOptions,
): Promise<{ body: unknown; maxAgeSec?: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = options.allowHosts.has(host);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    throw new GuardedFetchError('the document URL must use https');
  if (url.username || url.password) throw new GuardedFetchError('the document URL must not carry credentials');
  const { policy, dispatcher } = guardOf(options);
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      { headers: { accept: 'application/json' } },
      { purpose: 'the client metadata document', policy, dispatcher, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES },
    );
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new GuardedFetchError(toStranger(error, host));
  }
  if (response.status !== 200)
    throw new GuardedFetchError(`the document URL answered ${response.status} (redirects are not followed)`);
  try {
    const maxAge = /max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '');
    return { body: await response.json(), ...(maxAge && { maxAgeSec: Number(maxAge[1]) }) };
  } catch {
    throw new GuardedFetchError('the document is not JSON');
  }
}

/** What the client is told of a failed fetch. */
function toStranger(error: OutboundError, host: string): string {
  switch (error.failure) {
    case 'refused':
      // The address of a literal the client wrote itself; never what a name resolved to.
      return `the document's host resolves to a non-public address${classifyAddress(host) ? ` (${host})` : ''}`;
    case 'timeout':
      return 'the document URL gave no whole answer within 5 s';
    case 'too_large':
      return 'the document is larger than 64 KiB';
    default:
      return 'the document could not be fetched';
  }
}
