import type { McpUpstreamOptions } from '#libs/gateway';
import type { McpRestApiOptions } from '#libs/rest';
import { REDACTED } from '../document/virtual-servers.document';

/** The upstream with its credentials (bearer, header values, OAuth client secret) shown as `[REDACTED]`. */
export function redacted(upstream: McpUpstreamOptions): McpUpstreamOptions {
  const transport = upstream.transport;
  if (transport.type !== 'http') return upstream;
  return {
    ...upstream,
    transport: {
      ...transport,
      ...(transport.bearer !== undefined && { bearer: REDACTED }),
      ...(transport.headers && {
        headers: Object.fromEntries(Object.keys(transport.headers).map((key) => [key, REDACTED])),
      }),
      ...(transport.oauth && { oauth: { ...transport.oauth, clientSecret: REDACTED } }),
    },
  };
}

/** A `[REDACTED]` credential in an import or a change keeps the stored one of the same upstream. */
export function keepSecrets(given: unknown, stored: McpUpstreamOptions | undefined): unknown {
  const transport = (given as { transport?: Record<string, unknown> } | null)?.transport;
  const old = stored?.transport;
  if (!transport || old?.type !== 'http') return given;
  const next = { ...transport };
  if (next.bearer === REDACTED) next.bearer = old.bearer;
  if (typeof next.headers === 'object' && next.headers !== null)
    next.headers = Object.fromEntries(
      Object.entries(next.headers as Record<string, string>).map(([key, value]) => [
        key,
        value === REDACTED ? old.headers?.[key] : value,
      ]),
    );
  if (
    typeof next.oauth === 'object' &&
    next.oauth !== null &&
    (next.oauth as { clientSecret?: unknown }).clientSecret === REDACTED
  )
    next.oauth = { ...(next.oauth as object), clientSecret: old.oauth?.clientSecret };
  return { ...(given as object), transport: next };
}

/** The API with its credentials (header values, bearer, basic password, API key value) shown as `[REDACTED]`. */
export function redactedApi(api: McpRestApiOptions): McpRestApiOptions {
  const credentials = api.credentials;
  if (!credentials) return api;
  return {
    ...api,
    credentials: {
      ...credentials,
      ...(credentials.headers && {
        headers: Object.fromEntries(Object.keys(credentials.headers).map((key) => [key, REDACTED])),
      }),
      ...(credentials.bearer !== undefined && { bearer: REDACTED }),
      ...(credentials.basic && { basic: { ...credentials.basic, password: REDACTED } }),
      ...(credentials.apiKey && { apiKey: { ...credentials.apiKey, value: REDACTED } }),
    },
  };
}

/** A `[REDACTED]` credential of an API in an import or a change keeps the stored one of the same API. */
export function keepApiSecrets(given: unknown, stored: McpRestApiOptions | undefined): unknown {
  const credentials = (given as { credentials?: Record<string, unknown> } | null)?.credentials;
  const old = stored?.credentials;
  if (typeof credentials !== 'object' || credentials === null || !old) return given;
  const next: Record<string, unknown> = { ...credentials };
  if (next.bearer === REDACTED) next.bearer = old.bearer;
  if (typeof next.headers === 'object' && next.headers !== null)
    next.headers = Object.fromEntries(
      Object.entries(next.headers as Record<string, string>).map(([key, value]) => [
        key,
        value === REDACTED ? old.headers?.[key] : value,
      ]),
    );
  const basic = next.basic as { password?: unknown } | undefined;
  if (basic?.password === REDACTED) next.basic = { ...basic, password: old.basic?.password };
  const apiKey = next.apiKey as { value?: unknown } | undefined;
  if (apiKey?.value === REDACTED) next.apiKey = { ...apiKey, value: old.apiKey?.value };
  return { ...(given as object), credentials: next };
}
