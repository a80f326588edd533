import { IntrinsicException } from '@nestjs/common';
import { CallCancelledError } from './call-cancelled.error';

/**
 * The cancellation state of one call. The `AbortController` behind `ctx.signal` is created only
 * when the tool reads the signal: most calls finish without ever looking at it, and creating
 * one per call is a measurable share of the hot path.
 */
export class CallCancellation {
  private controller: AbortController | undefined;
  private reason: unknown;
  private cancelled = false;
  private requestedByClient = false;
  private byShutdown = false;
  /**
   * Answers the call at once when the host cancels it at shutdown (set by whoever answers it:
   * `ToolInvoker`), so a handler that ignores its signal cannot keep the answer from the client.
   */
  onShutdown: (() => void) | undefined;

  get isCancelled(): boolean {
    return this.cancelled;
  }

  /** The client cancelled the request (`notifications/cancelled`): it must get no response. */
  get byClient(): boolean {
    return this.requestedByClient;
  }

  /** The host cancelled the call because it is shutting down. */
  get forShutdown(): boolean {
    return this.byShutdown;
  }

  /** Why the call was cancelled, once it was. */
  get cause(): unknown {
    return this.reason;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Cancels the call on the client's request (`notifications/cancelled`). */
  cancelByClient(reason: string): void {
    if (!this.cancelled) this.requestedByClient = true;
    this.cancel(new Error(reason));
  }

  /** Cancels the call because the host is shutting down (its drain time is up). */
  cancelForShutdown(): void {
    if (this.cancelled) return;
    this.byShutdown = true;
    this.cancel(new Error('the host is shutting down'));
    this.onShutdown?.();
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    // A handler that stops on the signal throws its reason: make it one Nest does not log as a crash.
    this.reason =
      reason instanceof IntrinsicException
        ? reason
        : new CallCancelledError(reason instanceof Error ? reason.message : String(reason));
    this.controller?.abort(reason);
  }
}
