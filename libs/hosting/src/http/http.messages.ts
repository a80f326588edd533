import { JsonRpcErrorCode } from '#libs/core';
/** Transport-level refusals of the Streamable HTTP endpoint: HTTP status, JSON-RPC code, message. */
export const HttpMessages = {
  methodNotAllowed: (method: string) =>
    [405, JsonRpcErrorCode.INVALID_REQUEST, `Method Not Allowed: ${method} is not served on this endpoint`] as const,
  unsupportedMediaType: () =>
    [
      415,
      JsonRpcErrorCode.INVALID_REQUEST,
      'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json',
    ] as const,
  notAcceptable: (needs: string) =>
    [406, JsonRpcErrorCode.INVALID_REQUEST, `Not Acceptable: the Accept header must include ${needs}`] as const,
  tooLarge: (limit: number) =>
    [413, JsonRpcErrorCode.INVALID_REQUEST, `Payload Too Large: the body exceeds ${limit} bytes (bodyLimit)`] as const,
  invalidRequest: (reason: string) => [400, JsonRpcErrorCode.INVALID_REQUEST, `Invalid Request: ${reason}`] as const,
  unsupportedVersion: (version: string, supported: readonly string[]) =>
    [
      400,
      JsonRpcErrorCode.INVALID_REQUEST,
      `Bad Request: unsupported MCP-Protocol-Version "${version}"; supported: ${supported.join(', ')}`,
    ] as const,
  missingSession: () =>
    [
      400,
      JsonRpcErrorCode.INVALID_REQUEST,
      'Bad Request: the Mcp-Session-Id header is required; send initialize first to open a session',
    ] as const,
  unknownSession: () =>
    [
      404,
      JsonRpcErrorCode.TRANSPORT_REFUSED,
      'Session not found: it ended or never existed; send initialize to open a new one',
    ] as const,
  tooManySessions: (max: number) =>
    [
      503,
      JsonRpcErrorCode.INVALID_REQUEST,
      `Service Unavailable: the session limit (${max}) is reached; retry later`,
    ] as const,
  tooManyOwnSessions: (who: string, max: number, retryAfterSec: number) =>
    [
      429,
      JsonRpcErrorCode.INVALID_REQUEST,
      `Too Many Requests: ${who} already has ${max} open sessions (maxSessionsPerPrincipal); ` +
        `end unused ones with DELETE, or retry in ${retryAfterSec} s when the least recently used one expires`,
    ] as const,
  tooManyStreams: (max: number) =>
    [
      429,
      JsonRpcErrorCode.INVALID_REQUEST,
      `Too Many Requests: this session already has ${max} open GET streams; close one before opening another`,
    ] as const,
  tooManyAuthFailures: (seconds: number) =>
    [
      429,
      JsonRpcErrorCode.TRANSPORT_REFUSED,
      `Too Many Requests: too many failed authentications from this address; retry in ${seconds} s`,
    ] as const,
  parseError: () => [400, JsonRpcErrorCode.PARSE_ERROR, 'Parse error: the body is not valid JSON'] as const,
  notReady: () =>
    [503, JsonRpcErrorCode.INVALID_REQUEST, 'Service Unavailable: the host is starting or shutting down'] as const,
  sharedStateUnavailable: () =>
    [
      503,
      JsonRpcErrorCode.INTERNAL_ERROR,
      "Service Unavailable: the sessions the host's replicas share cannot be reached; retry shortly",
    ] as const,
} as const;

export type { HttpRefusal } from '#libs/security';
