import type { ToolHeaderParam } from '#libs/catalog';

/** The revision of the stateless era, and the `_meta` keys of its request envelope. */
export const MODERN_REVISION = '2026-07-28';
const ENVELOPE = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

/** The envelope's log level key. */
export const LOG_LEVEL_META = ENVELOPE.logLevel;
/** The envelope's client capabilities key (a call sets its own in `_meta`: what its caller can answer). */
export const CLIENT_CAPABILITIES_META = ENVELOPE.clientCapabilities;

/** The field of `params` each method's `Mcp-Name` header mirrors. */
const NAMED_BY: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/result': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header value as it may be sent: visible ASCII as is, anything else as `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(text: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(text);
  return plain && !(text.startsWith('=?base64?') && text.endsWith('?='))
    ? text
    : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** Who the gateway is to a 2026-07-28 upstream: what every request's envelope says. */
export interface ModernClient {
  readonly protocolVersion: string;
  readonly clientInfo: Readonly<Record<string, unknown>>;
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/**
 * `params` with the 2026-07-28 request envelope in `_meta`. Log messages are all asked for: the
 * caller's own level filters them on the way to the caller.
 */
export function withEnvelope(params: Record<string, unknown>, client: ModernClient): Record<string, unknown> {
  return {
    ...params,
    _meta: {
      [ENVELOPE.protocolVersion]: client.protocolVersion,
      [ENVELOPE.clientInfo]: client.clientInfo,
      [ENVELOPE.clientCapabilities]: client.capabilities,
      [ENVELOPE.logLevel]: 'debug',
      ...(params._meta as object | undefined),
    },
  };
}

/**
 * The headers a 2026-07-28 request must carry beside its body ("Standard Request Headers" and,
 * for a tool whose parameters are marked `x-mcp-header`, "Custom Headers from Tool Parameters").
 */
export function modernHeaders(
  method: string,
  params: Record<string, unknown>,
  protocolVersion: string,
  headerParams: readonly ToolHeaderParam[] = [],
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': protocolVersion, 'mcp-method': method };
  const field = NAMED_BY[method];
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  for (const { header, path } of headerParams) {
    let value: unknown = params.arguments;
    for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
    if (value === undefined || value === null) continue;
    headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(String(value));
  }
  return headers;
}
