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
      ...redactedBearerAndHeaders(transport),
      ...(transport.oauth && { oauth: { ...transport.oauth, clientSecret: REDACTED } }),
    },
  };
}

/** A `[REDACTED]` credential in an import or a change keeps the stored one of the same upstream. */
export function keepSecrets(given: unknown, stored: McpUpstreamOptions | undefined): unknown {
  const transport = (given as { transport?: Record<string, unknown> } | null)?.transport;
  const old = stored?.transport;
  if (!transport || old?.type !== 'http') return given;
  const next = keptBearerAndHeaders(transport, old);
  keepNested(next, 'oauth', 'clientSecret', old.oauth?.clientSecret);
  return { ...(given as object), transport: next };
}

/** The API with its credentials (header values, bearer, basic password, API key value) shown as `[REDACTED]`. */
export function redactedApi(api: McpRestApiOptions): McpRestApiOptions {
  const credentials = api.credentials;
  if (!credentials) return api;
  return {
    ...api,
    credentials: {
      ...redactedBearerAndHeaders(credentials),
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
  const next = keptBearerAndHeaders(credentials, old);
  keepNested(next, 'basic', 'password', old.basic?.password);
  keepNested(next, 'apiKey', 'value', old.apiKey?.value);
  return { ...(given as object), credentials: next };
}

/** What an upstream's transport and an API's credentials share: a bearer token and header values. */
interface BearerAndHeaders {
  readonly bearer?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

function redactedBearerAndHeaders<T extends BearerAndHeaders>(given: T): T {
  return {
    ...given,
    ...(given.bearer !== undefined && { bearer: REDACTED }),
    ...(given.headers && { headers: Object.fromEntries(Object.keys(given.headers).map((key) => [key, REDACTED])) }),
  };
}

/** `given` with a `[REDACTED]` bearer or header value replaced by the stored one. */
function keptBearerAndHeaders(given: Record<string, unknown>, old: BearerAndHeaders): Record<string, unknown> {
  const next = { ...given };
  if (next.bearer === REDACTED) next.bearer = old.bearer;
  if (typeof next.headers === 'object' && next.headers !== null)
    next.headers = Object.fromEntries(
      Object.entries(next.headers as Record<string, string>).map(([key, value]) => [
        key,
        value === REDACTED ? old.headers?.[key] : value,
      ]),
    );
  return next;
}

/** `next[key][field]`, when `[REDACTED]`, replaced by the stored value. */
function keepNested(next: Record<string, unknown>, key: string, field: string, stored: unknown): void {
  const nested = next[key] as Record<string, unknown> | undefined;
  if (typeof nested === 'object' && nested !== null && nested[field] === REDACTED)
    next[key] = { ...nested, [field]: stored };
}
