import type { AuditEntry } from './audit-record';

/** Most keys (address × reason) one window tracks; past it, refusals are summed up per reason alone. */
const MAX_KEYS = 10_000;

interface Tally {
  /** The last refusal counted (the summary record describes it). */
  last: AuditEntry;
  /** Refusals counted after the one recorded on its own. */
  more: number;
}

/**
 * Turns a flood of like refusals into a few records: per window, the first refusal of each
 * (address, principal, outcome, status, target, message) is recorded at once and the rest are counted;
 * when the window ends, one record with their `count` accounts for them. Memory is bounded: a
 * window tracks at most `MAX_KEYS` keys, and refusals past that (an attacker spraying addresses)
 * are summed up per reason, without the address.
 */
export class RefusalAggregator {
  private window = new Map<string, Tally>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly write: (entry: AuditEntry) => void,
  ) {}

  take(entry: AuditEntry): void {
    let key = keyOf(entry, entry.remoteAddress ?? null, entry.error ?? null);
    let tally = this.window.get(key);
    if (!tally && this.window.size >= MAX_KEYS) {
      // Past the bound (addresses or messages made up by the sender), one key per kind of refusal.
      key = keyOf(entry, '*', '*');
      tally = this.window.get(key);
      entry = { ...entry, remoteAddress: null };
    }
    if (tally) {
      tally.last = entry;
      tally.more++;
      return;
    }
    this.window.set(key, { last: entry, more: 0 });
    this.timer ??= setTimeout(() => this.close(), this.windowMs).unref();
    // The first of its kind is recorded at once: a new attack shows in the trail straight away.
    this.write(entry);
  }

  /** Ends the window: one record per key that saw more than its first refusal. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ended = this.window;
    this.window = new Map();
    for (const { last, more } of ended.values()) if (more > 0) this.write({ ...last, count: more });
  }
}

/** Like refusals: the same outcome, status, surface and principal, from one address, with the same message. */
function keyOf(entry: AuditEntry, address: string | null, message: string | null): string {
  return `${entry.outcome}\u0000${entry.errorCode ?? ''}\u0000${entry.target ?? ''}\u0000${entry.principal ?? ''}\u0000${address ?? '*'}\u0000${message ?? ''}`;
}
