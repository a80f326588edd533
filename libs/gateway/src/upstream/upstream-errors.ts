/**
 * The official client package (`@modelcontextprotocol/client`), loaded on first use: an
 * application without upstreams never loads the client side.
 */
export function clientSdk(): typeof import('@modelcontextprotocol/client') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@modelcontextprotocol/client') as typeof import('@modelcontextprotocol/client');
}

/** The upstream answered a request with a JSON-RPC error of its own: it is up. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamRpcError';
  }
}

/** The upstream did not answer within the upstream's `timeoutMs`. */
export class UpstreamTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the request timed out after ${timeoutMs} ms`);
    this.name = 'UpstreamTimeoutError';
  }
}

/**
 * The upstream sent a message larger than `limits.maxResponseBytes` (an answer, one event of a
 * stream, one stdio line): refused as it arrived, never read whole. The upstream is up: it does
 * not count against its circuit.
 */
export class UpstreamLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the upstream sent a message of more than ${maxBytes} bytes (limits.maxResponseBytes)`);
    this.name = 'UpstreamLimitError';
  }
}

/** What a failed request says of the upstream: it `answered` (with an error), `timeout`, or `unreachable`. */
export type UpstreamFailure = 'answered' | 'timeout' | 'unreachable';

/**
 * Sorts an error from either request path (the gateway's own HTTP channel or the SDK client)
 * into what it says of the upstream, and gives the upstream's own JSON-RPC errors one type.
 */
export function classifyUpstreamError(error: unknown): { failure: UpstreamFailure; error: unknown } {
  if (error instanceof UpstreamRpcError) return { failure: 'answered', error };
  if (error instanceof UpstreamTimeoutError) return { failure: 'timeout', error };
  if (error instanceof UpstreamLimitError) return { failure: 'answered', error };
  const { ProtocolError, SdkError, SdkErrorCode } = clientSdk();
  if (error instanceof ProtocolError)
    return {
      failure: 'answered',
      error: new UpstreamRpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data),
    };
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return { failure: 'timeout', error };
    const lost: string[] = [
      SdkErrorCode.ConnectionClosed,
      SdkErrorCode.SendFailed,
      SdkErrorCode.NotConnected,
      SdkErrorCode.NotInitialized,
    ];
    // Anything else the client refused (a result it cannot read, too many input rounds) came
    // from an upstream that answered.
    if (!lost.includes(error.code))
      return { failure: 'answered', error: new UpstreamRpcError(-32603, error.message, error.data) };
  }
  return { failure: 'unreachable', error };
}

/**
 * The upstream answered 401 to the credential of a caller (a token exchanged for them, or their
 * connected account): it is up, and the caller's identity is what it refused.
 */
export class CallerCredentialRefused extends UpstreamRpcError {
  constructor() {
    super(-32001, "the upstream refused the caller's credential (HTTP 401)");
  }
}
