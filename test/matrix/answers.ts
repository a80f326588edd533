import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a surface answered a call, in the few shapes there are:
 * - `result`: the tool's result (`isError` for a failure the model can act on);
 * - `error`: a JSON-RPC error (an unknown tool, a protocol refusal);
 * - `refused`: a refusal before any MCP message was read (an HTTP status);
 * - `exit`: a command line's exit code and what it printed;
 * - `http`: what one of the app's routes answered a plain HTTP request past its authentication
 *   (its status and JSON body: the route's own, or governance's refusal);
 * - `cancelled`: no answer, the caller having cancelled (as the protocol says).
 */
export type Answer =
  | { kind: 'result'; isError: boolean; text: string; meta: Record<string, unknown>; structured?: unknown }
  | { kind: 'error'; code: number; message: string; data?: unknown }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'exit'; code: number; stdout: string; stderr: string }
  | { kind: 'http'; status: number; body: Record<string, unknown> }
  | { kind: 'cancelled' };

/** A tool result as an answer: its first text (every desk result has one). */
export function resultAnswer(result: unknown): Answer {
  const { content, isError, _meta, structuredContent } = result as CallToolResult;
  const text = (content?.find((item) => item.type === 'text') as { text?: string } | undefined)?.text ?? '';
  return {
    kind: 'result',
    isError: isError === true,
    text,
    meta: (_meta as Record<string, unknown> | undefined) ?? {},
    ...(structuredContent !== undefined && { structured: structuredContent }),
  };
}

/**
 * What an SDK client threw, as an answer: a JSON-RPC error (`McpError`, the v2 client's
 * `ProtocolError`), an HTTP refusal (the transports' errors carry the status), or the client's
 * own cancellation (an `AbortError`).
 */
export function thrownAnswer(error: unknown): Answer {
  const thrown = error as { name?: string; code?: unknown; status?: unknown; message?: string; data?: unknown };
  const message = thrown?.message ?? String(error);
  if (thrown?.name === 'AbortError' || /aborted|AbortError/i.test(message)) return { kind: 'cancelled' };
  // Streamable HTTP transport errors: `Streamable HTTP error: Error POSTing to endpoint (HTTP 401): …`.
  const status = /HTTP (\d{3})/.exec(message)?.[1] ?? (typeof thrown?.status === 'number' ? thrown.status : undefined);
  if (status !== undefined && (typeof thrown?.code !== 'number' || thrown.code >= 400 || thrown.code === -1))
    return { kind: 'refused', status: Number(status), message };
  if (typeof thrown?.code === 'number' && thrown.code >= 400) return { kind: 'refused', status: thrown.code, message };
  if (typeof thrown?.code === 'number') return { kind: 'error', code: thrown.code, message, data: thrown.data };
  throw error;
}

/**
 * Runs `call` and gives what it answered, whichever way; once `signal` aborted, what the client
 * does by itself (it stops waiting, with an error of its own) is the caller's cancellation.
 */
export async function answerOf(call: () => Promise<unknown>, signal?: AbortSignal): Promise<Answer> {
  try {
    return resultAnswer(await call());
  } catch (error) {
    if (signal?.aborted) return { kind: 'cancelled' };
    return thrownAnswer(error);
  }
}
