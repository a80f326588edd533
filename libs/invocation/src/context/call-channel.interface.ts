import type { McpClientRequestOptions, McpLogLevel } from '#libs/core';

/** How a call reaches back to its client; implemented by each transport. */
export interface CallChannel {
  /** Sends a notification related to the request being served. */
  notify(method: string, params: Record<string, unknown>): void;
  /**
   * The lowest log level the client asked for: `logging/setLevel` (2025-era sessions) or the
   * request's `_meta` log level (2026-07-28). `undefined`: every level (a 2025-era client that set
   * none); `'off'`: none (a 2026-07-28 request that did not opt in to log messages).
   */
  readonly logLevel: McpLogLevel | 'off' | undefined;
  /** Why this call cannot send requests to its client at all (e.g. no session), if so. */
  readonly requestsUnavailable: string | undefined;
  /** The capabilities the client declared in `initialize` (or, 2026-07-28, in the request's `_meta`). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Ends the request's SSE connection now; the client reconnects to get the rest. */
  closeStream(): void;
  /**
   * Sends a request to the client and resolves to its result.
   * @param options what the tool gave with the request (its `key`, `onlyWhenAsked`)
   * @throws McpClientRequestError when it cannot be delivered, is refused, times out or is aborted.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    signal: AbortSignal,
    options?: McpClientRequestOptions,
  ): Promise<unknown>;
  /**
   * How a request ends that needs a capability the client did not declare, when the channel
   * decides it (a 2026-07-28 request is answered with `-32021`); `undefined` leaves it to the
   * call, which rejects with `McpClientRequestError` (`unsupported`).
   * @param capability its key in `ClientCapabilities` (`elicitation`, `sampling`, `roots`)
   * @param required what of it is needed, e.g. `{ url: {} }` for URL-mode elicitation
   * @param what the request in words, e.g. `sampling ('sampling')`
   */
  missingCapability?(
    capability: string,
    required: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<never> | undefined;
  /** Hands the rest of the call to a task, where the transport can (see `McpCallContext.continueAsTask`). */
  continueAsTask?(): Promise<void>;
}
