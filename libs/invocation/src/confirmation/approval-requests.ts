import { createHash, randomBytes } from 'node:crypto';
import { Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { canonicalJson } from '#libs/security';
import { expiryOf, InjectApprovalLedger, type ApprovalLedger } from './approval-ledger';
import { InMemoryApprovalLedger } from './in-memory-approval.ledger';
import type { ApprovalBinding, McpApproval, McpApprovalChannel, McpApprovalStatus } from './mcp-approval';

/** What happened to an approval request, for the audit trail and webhooks. */
export interface McpApprovalEvent {
  type: 'requested' | 'approved' | 'denied' | 'expired' | 'used';
  approval: McpApproval;
  /** Who did it: the requester (requested, used), the person deciding, or `null` (expired). */
  actor: string | null;
}

/** Why a decision was refused. */
export class ApprovalDecisionError extends Error {
  constructor(
    message: string,
    readonly status: 403 | 404 | 409,
  ) {
    super(message);
  }
}

/** At most this many requests wait per principal: more calls are refused, so no one floods the approvers. */
const MAX_PENDING_PER_PRINCIPAL = 20;
const SWEEP_INTERVAL_MS = 5_000;

/**
 * The approval requests of sensitive calls, held by the host until a person decides them. A
 * request is bound to the principal, the tool and the digest of the arguments, and expires; an
 * approved request is used up by the first retry of that very call. Kept in the `ApprovalLedger`:
 * in process memory, or, with the `cluster` option, on the backplane: a request opened on one
 * replica is decided on any, and used once across all of them.
 */
@Injectable()
export class ApprovalRequests implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners = new Set<(event: McpApprovalEvent) => void>();
  /** Who waits for a decision, by request id. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  /** @param ledger where the requests are kept (in this process's memory by default) */
  constructor(
    @Optional() @InjectApprovalLedger() private readonly ledger: ApprovalLedger = new InMemoryApprovalLedger(),
  ) {}

  onModuleInit(): void {
    this.stopListening = this.ledger.onDecided((id) => this.wake(id));
    // Swept from the start, until the ledger holds nothing more: a ledger shared with other
    // replicas holds theirs, which expire on time even when the replica that opened them is gone.
    this.sweeper ??= setInterval(() => void this.sweep().catch(() => undefined), SWEEP_INTERVAL_MS).unref();
  }

  /** The request standing for this call: the newest one not used and not expired. */
  async current(binding: ApprovalBinding, now = Date.now()): Promise<McpApproval | undefined> {
    let found: McpApproval | undefined;
    for (const approval of await this.ledger.ofCall(binding)) {
      if (approval.status === 'used' || approval.status === 'expired' || expiryOf(approval) <= now) continue;
      if (!found || expiryOf(approval) > expiryOf(found)) found = approval;
    }
    return found;
  }

  /**
   * Opens a request for this call.
   * @throws ApprovalDecisionError (409) when the principal already has too many waiting
   */
  async open(
    binding: ApprovalBinding,
    details: {
      arguments: unknown;
      question: string;
      channel: McpApprovalChannel;
      client: McpApproval['client'];
      transport: McpApproval['transport'];
      ttlMs: number;
    },
    now = Date.now(),
  ): Promise<McpApproval> {
    const pending = await this.ledger.pendingOf(binding.principal);
    if (pending >= MAX_PENDING_PER_PRINCIPAL) {
      throw new ApprovalDecisionError(
        `${binding.principal} already has ${pending} calls waiting for approval; wait until they are decided or expire`,
        409,
      );
    }
    const approval: McpApproval = {
      id: randomBytes(18).toString('base64url'),
      tool: binding.tool,
      principal: binding.principal,
      arguments: details.arguments,
      question: details.question,
      status: 'pending',
      channel: details.channel,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + details.ttlMs).toISOString(),
      client: details.client,
      transport: details.transport,
      decidedBy: null,
      decidedAt: null,
      reason: null,
    };
    await this.ledger.add(approval, binding, now + details.ttlMs);
    this.sweeper ??= setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS).unref();
    this.emit({ type: 'requested', approval, actor: binding.principal });
    return approval;
  }

  get(id: string): Promise<McpApproval | undefined> {
    return this.ledger.get(id);
  }

  /** Every request kept, waiting ones first, then the newest. */
  async list(status?: McpApprovalStatus): Promise<McpApproval[]> {
    const all = (await this.ledger.all()).filter((approval) => !status || approval.status === status);
    return all.sort(
      (a, b) =>
        Number(b.status === 'pending') - Number(a.status === 'pending') ||
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0),
    );
  }

  /**
   * Records a person's decision on a waiting request (once: of people deciding at once, on any
   * replica, the first decides).
   * @throws ApprovalDecisionError 404 (unknown) or 409 (already decided, used or expired)
   */
  async decide(id: string, approve: boolean, actor: string, reason?: string, now = Date.now()): Promise<McpApproval> {
    let approval = await this.ledger.get(id);
    if (!approval) throw new ApprovalDecisionError(`No approval request ${id}`, 404);
    if (approval.status === 'pending' && expiryOf(approval) <= now) approval = await this.expire(approval);
    const decided =
      approval.status === 'pending'
        ? await this.ledger.decide(id, {
            status: approve ? 'approved' : 'denied',
            decidedBy: actor,
            decidedAt: new Date(now).toISOString(),
            reason: reason?.trim() ? reason.trim().slice(0, 500) : null,
          })
        : undefined;
    if (!decided) {
      const status = (await this.ledger.get(id))?.status ?? approval.status;
      throw new ApprovalDecisionError(`Approval request ${id} is already ${status}`, 409);
    }
    // As decided: in memory the request is one object, which the waiting call may use up at once.
    const answer = { ...decided };
    await this.decided(id);
    this.emit({ type: approve ? 'approved' : 'denied', approval: decided, actor });
    return answer;
  }

  /**
   * Uses up an approved request: the call it approved runs now, and only this once.
   * @returns whether this call used it (`false`: it was not approved, or another call, on any replica, used it first)
   */
  async use(approval: McpApproval): Promise<boolean> {
    const used = await this.ledger.use(approval.id);
    if (used) this.emit({ type: 'used', approval: used, actor: used.principal });
    return used !== undefined;
  }

  /** Resolves with the request's status once it is decided or expires, or after `ms` (or `signal`) with `pending`. */
  async waitForDecision(approval: McpApproval, ms: number, signal: AbortSignal): Promise<McpApprovalStatus> {
    if (approval.status !== 'pending') return approval.status;
    const deadline = Math.min(Date.now() + ms, expiryOf(approval));
    for (;;) {
      // Listening first: a decision made while the request is read again is not missed.
      const woken = this.nextWake(approval.id, deadline, signal);
      const current = await this.ledger.get(approval.id).catch((error: unknown) => {
        woken.stop();
        throw error;
      });
      if (!current || current.status !== 'pending' || signal.aborted || Date.now() >= deadline) {
        woken.stop();
        if (!current || current.status !== 'pending') return current?.status ?? approval.status;
        // Its time is up: expire it now rather than at the next sweep.
        if (expiryOf(current) <= Date.now()) return (await this.expire(current)).status;
        return 'pending';
      }
      await woken.done;
    }
  }

  /** Calls `listener` for every request opened, decided, expired or used (on this replica). */
  onEvent(listener: (event: McpApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Expires waiting requests past their time and forgets decided ones past an hour. */
  async sweep(now = Date.now()): Promise<void> {
    for (const approval of await this.ledger.due(now)) await this.expire(approval);
    if (!(await this.ledger.forget(now))) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** After the drain (Nest runs `onModuleDestroy` before it): the calls in flight still need this. */
  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.stopListening?.();
  }

  /** Expires a waiting request (once); the request as it stands after. */
  private async expire(approval: McpApproval): Promise<McpApproval> {
    const expired = await this.ledger.decide(approval.id, {
      status: 'expired',
      decidedBy: null,
      decidedAt: null,
      reason: null,
    });
    if (!expired) return (await this.ledger.get(approval.id)) ?? approval;
    await this.decided(approval.id);
    this.emit({ type: 'expired', approval: expired, actor: null });
    return expired;
  }

  /** Wakes whoever waits for the request, here and wherever else the ledger is read. */
  private async decided(id: string): Promise<void> {
    this.wake(id);
    const announced = this.ledger.announce(id);
    if (announced) await announced.catch(() => undefined);
  }

  private wake(id: string): void {
    for (const waiter of [...(this.waiters.get(id) ?? [])]) waiter();
  }

  /** Resolves `done` at the next word of a decision, at `deadline`, on `signal`, or when the ledger should be read again. */
  private nextWake(id: string, deadline: number, signal: AbortSignal): { done: Promise<void>; stop: () => void } {
    let resolve!: () => void;
    const done = new Promise<void>((settle) => (resolve = settle));
    const waiting = this.waiters.get(id) ?? new Set<() => void>();
    this.waiters.set(id, waiting);
    const delay = Math.max(0, deadline - Date.now());
    const stop = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      waiting.delete(stop);
      if (waiting.size === 0 && this.waiters.get(id) === waiting) this.waiters.delete(id);
      resolve();
    };
    const timer = setTimeout(stop, Math.min(delay, this.ledger.recheckMs));
    waiting.add(stop);
    signal.addEventListener('abort', stop, { once: true });
    return { done, stop };
  }

  private emit(event: McpApprovalEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener (audit, webhook) reports its own failures; the decision stands.
      }
    }
  }
}

/** The digest of a call's arguments that an approval binds to (key order does not matter). */
export function digestOfArguments(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}
