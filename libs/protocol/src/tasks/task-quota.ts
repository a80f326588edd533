import { Injectable } from '@nestjs/common';
import { RequestLimitError } from '../wire/request-limits';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';

/** Principals remembered before those whose tasks all expired are forgotten. */
const SWEEP_ABOVE = 1_000;

/**
 * How many tasks each principal holds in this process: running, or ended and kept with their
 * results until they expire. A task beyond `maxTasksPerPrincipal` is refused, so one caller (or
 * a fuzzer with a valid key) cannot fill the host's memory with results nobody reads. Counted
 * per replica, as sessions are.
 */
@Injectable()
export class TaskQuota {
  /** Per principal, the expiry times of its tasks, oldest first. */
  private readonly held = new Map<string, number[]>();

  constructor(@InjectProtocolOptions() private readonly options: ProtocolOptions) {}

  /**
   * Counts a new task of `principal`, kept until `expiresAt`.
   * @throws RequestLimitError (`-32602`, audited `limited`) when the principal holds its maximum
   */
  take(principal: string, expiresAt: number, now = Date.now()): void {
    if (this.held.size > SWEEP_ABOVE) this.sweep(now);
    const expiries = this.held.get(principal) ?? [];
    while (expiries.length > 0 && expiries[0] <= now) expiries.shift();
    const max = this.options.tasks.maxPerPrincipal;
    if (expiries.length >= max) {
      const retryIn = Math.max(1, Math.ceil((expiries[0] - now) / 1000));
      throw new RequestLimitError(
        `Too many tasks: "${principal}" already holds ${max} (maxTasksPerPrincipal), running or kept with their ` +
          `results; the oldest is forgotten in ${retryIn} s. Fetch or cancel the ones you have, or run the call without a task.`,
      );
    }
    // Tasks are created in time order with one ttl: appending keeps the list sorted.
    let at = expiries.length;
    while (at > 0 && expiries[at - 1] > expiresAt) at--;
    expiries.splice(at, 0, expiresAt);
    this.held.set(principal, expiries);
  }

  /** Forgets principals whose tasks have all expired. */
  sweep(now = Date.now()): void {
    for (const [principal, expiries] of this.held) {
      while (expiries.length > 0 && expiries[0] <= now) expiries.shift();
      if (expiries.length === 0) this.held.delete(principal);
    }
  }
}
