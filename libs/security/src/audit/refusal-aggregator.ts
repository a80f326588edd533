import type { AuditEntry } from './audit-record';

/** Most keys (address × reason) one window tracks; past it, refusals are summed up per reason alone. */
const MAX_KEYS = 10_000;
/**
 * What the sender chose in a refusal message: the quoted value (a `Host` or `Origin` header, a
 * protocol version: from the first quote to the last, so quotes inside it change nothing) and
 * numbers (seconds left of a lock-out). Two messages that differ only there give one reason.
 */
const SENDER_CHOSEN = /".*"|\d+/gs;
/** What a record keeps of a refusal message (a header can be 16 KB; a tool error keeps as much). */
const MESSAGE_LIMIT = 1_000;

interface Tally {
  /** The last refusal counted (the summary record describes it). */
  last: AuditEntry;
  /** Refusals counted after the one recorded on its own. */
  more: number;
}

/**
 * Turns a flood of like refusals into a few records: per window, the first refusal of each
 * (address, principal, outcome, status, target, action, reason: the message without the values its
 * sender chose) is recorded at once and the rest are counted;
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
    let key = keyOf(entry, entry.remoteAddress ?? null, reasonOf(entry.error));
    let tally = this.window.get(key);
    if (!tally && this.window.size >= MAX_KEYS) {
      // Past the bound (addresses made up by the sender), one key per kind of refusal.
      key = keyOf(entry, '*', '*');
      tally = this.window.get(key);
      entry = { ...entry, remoteAddress: null };
    }
    if (entry.error && entry.error.length > MESSAGE_LIMIT)
      entry = { ...entry, error: `${entry.error.slice(0, MESSAGE_LIMIT - 1)}…` };
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

/** The message without what its sender chose. */
function reasonOf(message: string | null | undefined): string | null {
  return message ? message.replace(SENDER_CHOSEN, '…') : null;
}

/** Like refusals: the same outcome, status, surface, action and principal, from one address, for the same reason. */
function keyOf(entry: AuditEntry, address: string | null, message: string | null): string {
  return `${entry.outcome}\u0000${entry.errorCode ?? ''}\u0000${entry.target ?? ''}\u0000${entry.method ?? ''}\u0000${entry.principal ?? ''}\u0000${address ?? '*'}\u0000${message ?? ''}`;
}
