import {
  ALL_PROTOCOL_VERSIONS,
  isMcpLogLevel,
  isStatelessVersion,
  JsonRpcError,
  MCP_LOG_LEVELS,
  JsonRpcErrorCode,
  STATELESS_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpLogLevel,
} from '#libs/core';

/** The `_meta` keys of a 2026-07-28 request and result. */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** What a stateless request says about its client in `_meta` (in place of a session). */
export interface RequestEnvelope {
  readonly protocolVersion: string;
  readonly clientInfo: { name: string; version: string } | undefined;
  readonly clientCapabilities: Record<string, unknown>;
  /** The level of `notifications/message` the client wants for this request; none when absent. */
  readonly logLevel: McpLogLevel | undefined;
}

type Params = Record<string, unknown> | undefined;

/** The `_meta` of a request's params, when it is an object. */
function metaOf(params: Params): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

/** The protocol version a request names in its `_meta`, if it names one (as any value). */
export function envelopeVersionOf(params: Params): unknown {
  return metaOf(params)?.[META_KEYS.protocolVersion];
}

/**
 * Whether a request speaks the stateless revision: its `_meta` names a version, or its transport
 * says so (an `MCP-Protocol-Version` header newer than the session-era revisions).
 */
export function isStatelessRequest(params: Params, transportVersion: string | undefined): boolean {
  return (
    envelopeVersionOf(params) !== undefined ||
    (transportVersion !== undefined &&
      !SUPPORTED_PROTOCOL_VERSIONS.includes(transportVersion) &&
      isStatelessVersion(transportVersion))
  );
}

function invalidMeta(problem: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.INVALID_PARAMS,
    `Invalid params: ${problem} (a ${STATELESS_PROTOCOL_VERSION} request carries "_meta" with ` +
      `"${META_KEYS.protocolVersion}" and "${META_KEYS.clientCapabilities}")`,
    undefined,
    400,
  );
}

/**
 * Reads and checks the `_meta` envelope of a stateless request.
 * @throws JsonRpcError `-32602` (HTTP 400) for a missing or malformed required field,
 *   `-32022` (HTTP 400) for a version the host does not serve statelessly
 */
export function readEnvelope(params: Params): RequestEnvelope {
  const meta = metaOf(params);
  if (!meta) throw invalidMeta('"_meta" is missing');
  const version = meta[META_KEYS.protocolVersion];
  if (typeof version !== 'string' || version === '') throw invalidMeta(`"${META_KEYS.protocolVersion}" is missing`);
  if (version !== STATELESS_PROTOCOL_VERSION) throw unsupportedVersion(version);
  const capabilities = meta[META_KEYS.clientCapabilities];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities))
    throw invalidMeta(`"${META_KEYS.clientCapabilities}" must be an object`);
  const info = meta[META_KEYS.clientInfo] as { name?: unknown; version?: unknown } | undefined;
  const clientInfo =
    info && typeof info === 'object' && typeof info.name === 'string'
      ? { name: info.name, version: typeof info.version === 'string' ? info.version : '' }
      : undefined;
  const level = meta[META_KEYS.logLevel];
  if (level !== undefined && !isMcpLogLevel(level))
    throw invalidMeta(`"${META_KEYS.logLevel}" must be one of ${MCP_LOG_LEVELS.join(', ')}`);
  return {
    protocolVersion: version,
    clientInfo,
    clientCapabilities: capabilities as Record<string, unknown>,
    logLevel: level as McpLogLevel | undefined,
  };
}

/** `-32022` naming the versions the host serves and echoing the one requested (HTTP 400). */
export function unsupportedVersion(requested: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version "${requested}"; supported: ${ALL_PROTOCOL_VERSIONS.join(', ')}`,
    { supported: ALL_PROTOCOL_VERSIONS, requested },
    400,
  );
}

/**
 * `-32021` for a request that needs a client capability its `_meta` did not declare (HTTP 400).
 * @param capability the capability's key in `ClientCapabilities`, e.g. `elicitation`
 * @param required what of the capability is needed, e.g. `{ url: {} }` for URL-mode elicitation
 */
export function missingClientCapability(
  capability: string,
  why: string,
  required: Record<string, unknown> = {},
): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
    `Missing client capability "${capability}": ${why}; declare it in "_meta"."${META_KEYS.clientCapabilities}"`,
    { requiredCapabilities: { [capability]: required } },
    400,
  );
}
