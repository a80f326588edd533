/**
 * Where a refused call says, machine-readably, when to try again: the `_meta` of its error
 * result (tools), or the `data` of its JSON-RPC error (prompts, resources), in seconds.
 */
export const RETRY_AFTER_META = 'nest-mcp-host/retryAfterSeconds';

/**
 * An exception that knows when the call may be retried (e.g. a throttled call). Any exception
 * with a numeric `retryAfterSeconds` is read this way.
 */
export interface McpRetryable {
  readonly retryAfterSeconds: number;
}

/** The seconds after which the call that threw `error` may be retried, if it says. */
export function retryAfterOf(error: unknown): number | undefined {
  const seconds = (error as Partial<McpRetryable> | null | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
