import { createHash, randomBytes } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { McpTransportKind } from '#libs/core';
import { canonicalJson } from '#libs/security';

/** Where an approval request stands. `used`: approved, and the call it approved has run. */
export type McpApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

/**
 * How the request reached a person: `url` — the user was sent to the approval page by URL-mode
 * elicitation (the user who made the call may decide it); `approvers` — it waits for an
 * approver on the dashboard, the admin API or a chat-ops integration.
 */
export type McpApprovalChannel = 'url' | 'approvers';

/** An approval request, as the admin API, the dashboard and webhooks show it. */
export interface McpApproval {
  id: string;
  tool: string;
  /** The principal whose call waits; only its retry with the same arguments runs once approved. */
  principal: string;
  /** The call's arguments, with fields marked sensitive redacted. */
  arguments: unknown;
  /** The question put to the person deciding. */
  question: string;
  status: McpApprovalStatus;
  channel: McpApprovalChannel;
  createdAt: string;
  expiresAt: string;
  client: { name: string; version: string } | null;
  /** The transport of the call that waits. */
  transport: McpTransportKind;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

/** What happened to an approval request, for the audit trail and webhooks. */
export interface McpApprovalEvent {
  type: 'requested' | 'approved' | 'denied' | 'expired' | 'used';
  approval: McpApproval;
  /** Who did it: the requester (requested, used), the person deciding, or `null` (expired). */
  actor: string | null;
}

/** The call an approval is bound to: who, which tool, which arguments (never a session). */
export interface ApprovalBinding {
  principal: string;
  tool: string;
  /** `digestOfArguments(args)`. */
  digest: string;
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

interface Entry {
  approval: McpApproval;
  binding: ApprovalBinding;
  expiresAt: number;
  /** Resolved when the request is decided or expires. */
  decided: Promise<McpApprovalStatus>;
  settle: (status: McpApprovalStatus) => void;
}

/** Decided requests stay listed this long, then are forgotten. */
const KEEP_DECIDED_MS = 60 * 60_000;
/** At most this many requests wait per principal: more calls are refused, so no one floods the approvers. */
const MAX_PENDING_PER_PRINCIPAL = 20;
const SWEEP_INTERVAL_MS = 5_000;

/**
 * The approval requests of sensitive calls, held by the host until a person decides them. A
 * request is bound to the principal, the tool and the digest of the arguments, and expires; an
 * approved request is used up by the first retry of that very call. In process memory.
 */
@Injectable()
export class ApprovalRequests implements OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(event: McpApprovalEvent) => void>();
  private sweeper: NodeJS.Timeout | undefined;

  /** The request standing for this call: the newest one not used and not expired. */
  current(binding: ApprovalBinding, now = Date.now()): McpApproval | undefined {
    let found: Entry | undefined;
    for (const entry of this.entries.values()) {
      if (
        !sameBinding(entry.binding, binding) ||
        entry.approval.status === 'used' ||
        entry.approval.status === 'expired'
      )
        continue;
      if (entry.expiresAt <= now) continue;
      if (!found || entry.expiresAt > found.expiresAt) found = entry;
    }
    return found?.approval;
  }

  /**
   * Opens a request for this call.
   * @throws ApprovalDecisionError (409) when the principal already has too many waiting
   */
  open(
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
  ): McpApproval {
    const pending = [...this.entries.values()].filter(
      (entry) => entry.binding.principal === binding.principal && entry.approval.status === 'pending',
    ).length;
    if (pending >= MAX_PENDING_PER_PRINCIPAL) {
      throw new ApprovalDecisionError(
        `${binding.principal} already has ${pending} calls waiting for approval; wait until they are decided or expire`,
        409,
      );
    }
    let settle!: (status: McpApprovalStatus) => void;
    const decided = new Promise<McpApprovalStatus>((resolve) => (settle = resolve));
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
    this.entries.set(approval.id, { approval, binding, expiresAt: now + details.ttlMs, decided, settle });
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
    this.emit({ type: 'requested', approval, actor: binding.principal });
    return approval;
  }

  get(id: string): McpApproval | undefined {
    return this.entries.get(id)?.approval;
  }

  /** Every request kept, waiting ones first, then the newest. */
  list(status?: McpApprovalStatus): McpApproval[] {
    const all = [...this.entries.values()]
      .map((entry) => entry.approval)
      .filter((approval) => !status || approval.status === status);
    return all.sort(
      (a, b) =>
        Number(b.status === 'pending') - Number(a.status === 'pending') ||
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0),
    );
  }

  /**
   * Records a person's decision on a waiting request.
   * @throws ApprovalDecisionError 404 (unknown) or 409 (already decided, used or expired)
   */
  decide(id: string, approve: boolean, actor: string, reason?: string, now = Date.now()): McpApproval {
    const entry = this.entries.get(id);
    if (!entry) throw new ApprovalDecisionError(`No approval request ${id}`, 404);
    if (entry.approval.status === 'pending' && entry.expiresAt <= now) this.expire(entry);
    if (entry.approval.status !== 'pending')
      throw new ApprovalDecisionError(`Approval request ${id} is already ${entry.approval.status}`, 409);
    Object.assign(entry.approval, {
      status: approve ? 'approved' : 'denied',
      decidedBy: actor,
      decidedAt: new Date(now).toISOString(),
      reason: reason?.trim() ? reason.trim().slice(0, 500) : null,
    });
    entry.settle(entry.approval.status);
    this.emit({ type: approve ? 'approved' : 'denied', approval: entry.approval, actor });
    return entry.approval;
  }

  /** Uses up an approved request: the call it approved runs now, and only this once. */
  use(approval: McpApproval): void {
    if (approval.status !== 'approved') return;
    approval.status = 'used';
    this.emit({ type: 'used', approval, actor: approval.principal });
  }

  /** Resolves with the request's status once it is decided or expires, or after `ms` (or `signal`) with `pending`. */
  async waitForDecision(approval: McpApproval, ms: number, signal: AbortSignal): Promise<McpApprovalStatus> {
    const entry = this.entries.get(approval.id);
    if (!entry || approval.status !== 'pending') return approval.status;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const giveUp = new Promise<McpApprovalStatus>((resolve) => {
      timer = setTimeout(
        () => {
          // Its time is up: expire it now rather than at the next sweep.
          if (entry.approval.status === 'pending' && entry.expiresAt <= Date.now()) this.expire(entry);
          resolve(entry.approval.status === 'expired' ? 'expired' : 'pending');
        },
        Math.max(0, Math.min(ms, entry.expiresAt - Date.now())),
      );
      onAbort = () => resolve('pending');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([entry.decided, giveUp]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort!);
    }
  }

  /** Calls `listener` for every request opened, decided, expired or used. */
  onEvent(listener: (event: McpApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Expires waiting requests past their time and forgets decided ones past `KEEP_DECIDED_MS`. */
  sweep(now = Date.now()): void {
    for (const [id, entry] of this.entries) {
      if (entry.approval.status === 'pending' && entry.expiresAt <= now) this.expire(entry);
      else if (entry.approval.status !== 'pending' && entry.expiresAt + KEEP_DECIDED_MS <= now) this.entries.delete(id);
    }
    if (this.entries.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private expire(entry: Entry): void {
    entry.approval.status = 'expired';
    entry.settle('expired');
    this.emit({ type: 'expired', approval: entry.approval, actor: null });
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

function sameBinding(a: ApprovalBinding, b: ApprovalBinding): boolean {
  return a.principal === b.principal && a.tool === b.tool && a.digest === b.digest;
}
