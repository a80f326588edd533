import { JsonRpcErrorCode, McpClientRequestError } from '#libs/core';
import { notification } from '../wire/json-rpc';

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * The requests a session's tools sent to its client (elicitation, sampling, roots) and are
 * waiting on. The client answers with a JSON-RPC response, possibly on another HTTP request;
 * the dispatcher hands it to `settle`.
 */
export class ClientRequests {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  /**
   * Put in the ids of the requests this replica sends (its name), when replicas share the
   * session: the answer may reach another replica, which passes it on by id.
   */
  idPrefix: string | undefined;

  /**
   * Sends `method` with `send` and waits for the answer, at most `timeoutMs`, or until `signal`
   * aborts (then the client is told with `notifications/cancelled`).
   */
  send(
    method: string,
    params: Record<string, unknown>,
    send: (message: string) => boolean,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<unknown> {
    const id = this.idPrefix === undefined ? `srv-${++this.next}` : `srv-${this.idPrefix}-${++this.next}`;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const onAbort = () => {
        finish();
        send(notification('notifications/cancelled', { requestId: id, reason: 'the tool call was cancelled' }));
        reject(new McpClientRequestError(`${method} was abandoned: the call was cancelled`, 'cancelled'));
      };
      const timer = setTimeout(() => {
        finish();
        send(notification('notifications/cancelled', { requestId: id, reason: 'timed out' }));
        reject(new McpClientRequestError(`The client did not answer ${method} within ${timeoutMs} ms.`, 'timeout'));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        method,
        resolve: (result) => {
          finish();
          resolve(result);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      if (!send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) {
        this.pending
          .get(id)
          ?.reject(
            new McpClientRequestError(
              `${method} cannot reach the client: it accepts no event stream on this request and has no GET stream open.`,
              'unreachable',
            ),
          );
      }
    });
  }

  /**
   * Delivers the client's answer to request `id`; returns false if nothing waited for it. An
   * error `-32601` (the client has no such method, e.g. a gateway whose caller cannot be asked)
   * is `unsupported`, as for a client that never declared the capability; any other, `refused`.
   */
  settle(id: unknown, result: unknown, error: { message?: unknown; code?: unknown } | undefined): boolean {
    const pending = typeof id === 'string' ? this.pending.get(id) : undefined;
    if (!pending) return false;
    if (error)
      pending.reject(
        error.code === JsonRpcErrorCode.METHOD_NOT_FOUND
          ? new McpClientRequestError(
              `The client cannot answer ${pending.method}: ${String(error.message ?? 'no reason given')}`,
              'unsupported',
            )
          : new McpClientRequestError(
              `The client refused ${pending.method}: ${String(error.message ?? 'no reason given')}`,
              'refused',
            ),
      );
    else pending.resolve(result);
    return true;
  }

  /** Fails every waiting request (the session ended). */
  abandon(reason: string): void {
    for (const pending of [...this.pending.values()])
      pending.reject(new McpClientRequestError(`${pending.method} was abandoned: ${reason}`, 'cancelled'));
  }
}
