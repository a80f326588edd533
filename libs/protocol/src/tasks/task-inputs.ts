import { McpClientRequestError } from '#libs/core';
import type { ClientInputs } from '../methods/method-handler';

/** A request a task waits on, as `tasks/get` shows it in `inputRequests`. */
export interface TaskInputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** The requests outstanding, by key. */
export type TaskInputRequests = Record<string, TaskInputRequest>;

interface Pending extends TaskInputRequest {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/** The prefix of a request's key, so a client reading `inputRequests` sees what each one is. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The requests a task's call made to its client (elicitation, sampling, roots) and waits on
 * (2026-07-28 tasks extension): the task shows them in `inputRequests` and the client answers
 * with `tasks/update`. Keys are never reused over the task's life, so a late or repeated answer
 * cannot reach a newer request.
 */
export class TaskInputs implements ClientInputs {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private closed: string | undefined;

  /** @param changed told the requests outstanding whenever they change (the task's status follows them). */
  constructor(private readonly changed: (outstanding: TaskInputRequests) => void) {}

  request(method: string, params: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<unknown> {
    if (this.closed)
      return Promise.reject(new McpClientRequestError(`${method} not sent: ${this.closed}`, 'cancelled'));
    const key = `${KEY_PREFIX[method] ?? 'input'}-${++this.next}`;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(key);
      };
      const onAbort = () => {
        finish();
        this.changed(this.outstanding);
        reject(new McpClientRequestError(`${method} was abandoned: the call was cancelled`, 'cancelled'));
      };
      const timer = setTimeout(() => {
        finish();
        this.changed(this.outstanding);
        reject(new McpClientRequestError(`The client did not answer ${method} within ${timeoutMs} ms.`, 'timeout'));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(key, {
        method,
        params,
        resolve: (result) => (finish(), resolve(result)),
        reject: (error) => (finish(), reject(error)),
      });
      this.changed(this.outstanding);
    });
  }

  /** The requests still waiting for an answer. */
  get outstanding(): TaskInputRequests {
    const requests: TaskInputRequests = {};
    for (const [key, { method, params }] of this.pending) requests[key] = { method, params };
    return requests;
  }

  /**
   * Delivers the client's answers. Keys that are not outstanding (never issued, answered
   * already, or abandoned) are ignored, as the extension asks; a partial set is fine.
   * @returns the keys answered
   */
  respond(responses: Readonly<Record<string, unknown>>): string[] {
    const answered: string[] = [];
    for (const [key, response] of Object.entries(responses)) {
      const pending = this.pending.get(key);
      if (!pending) continue;
      answered.push(key);
      pending.resolve(response);
    }
    if (answered.length > 0) this.changed(this.outstanding);
    return answered;
  }

  /** Fails every request outstanding and refuses new ones (the task ended). */
  close(reason: string): void {
    this.closed = reason;
    for (const pending of [...this.pending.values()])
      pending.reject(new McpClientRequestError(`${pending.method} was abandoned: ${reason}`, 'cancelled'));
  }
}
