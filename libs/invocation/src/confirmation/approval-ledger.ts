import { Inject } from '@nestjs/common';
import type { ApprovalBinding, McpApproval } from './mcp-approval';

/** A decision on a waiting request: who made it, when and why (`expired`: nobody did in time). */
export interface ApprovalDecision {
  status: 'approved' | 'denied' | 'expired';
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

/**
 * Where `ApprovalRequests` keeps the requests, and how the word of a decision gets around: in
 * process memory (`InMemoryApprovalLedger`), or on the cluster's backplane (the `cluster` option),
 * where a request opened on one replica is decided on any. The two steps that may happen only
 * once — deciding a waiting request, and using an approved one — are atomic: of callers racing
 * for one, one gets the request back and the others `undefined`, on every replica.
 * @internal
 */
export interface ApprovalLedger {
  /**
   * How long a wait for a decision goes, at most, before it reads the request again, should the
   * word of a decision made elsewhere be lost (`Infinity` when every decision is made here, and
   * wakes the wait).
   */
  readonly recheckMs: number;
  /**
   * Tells whoever waits for request `id` elsewhere that it was decided; `undefined` when there is
   * nobody to tell (in process), so that the decision goes on without waiting.
   */
  announce(id: string): Promise<void> | undefined;
  /** Calls `listener` with each request decided elsewhere; returns how to stop. */
  onDecided(listener: (id: string) => void): () => void;
  /** Keeps a new (waiting) request until `expiresAt`, and for a while after it is decided. */
  add(approval: McpApproval, binding: ApprovalBinding, expiresAt: number): Promise<void>;
  get(id: string): Promise<McpApproval | undefined>;
  /** The requests of this very call (principal, tool, arguments), whatever their status. */
  ofCall(binding: ApprovalBinding): Promise<McpApproval[]>;
  /** How many requests of `principal` wait for a decision. */
  pendingOf(principal: string): Promise<number>;
  /** Every request kept. */
  all(): Promise<McpApproval[]>;
  /** The requests still waiting whose time was up at `now`: to expire. */
  due(now: number): Promise<McpApproval[]>;
  /** Decides a waiting request: the request as decided, or `undefined` when it was decided already. */
  decide(id: string, decision: ApprovalDecision): Promise<McpApproval | undefined>;
  /** Uses an approved request up: the request as used, or `undefined` when it was not approved or is used already. */
  use(id: string): Promise<McpApproval | undefined>;
  /** Forgets the decided requests kept long enough; `false` once nothing is left to sweep. */
  forget(now: number): Promise<boolean>;
}

/** Token of the `ApprovalLedger` (the hosting module provides the one its options ask for). */
export const MCP_APPROVAL_LEDGER = Symbol('MCP:APPROVAL_LEDGER');

/** Injects the `ApprovalLedger`. */
export const InjectApprovalLedger = () => Inject(MCP_APPROVAL_LEDGER);

/** Decided requests stay listed this long, then are forgotten. */
export const KEEP_DECIDED_MS = 60 * 60_000;

/** When `approval` expires, in ms since the epoch. */
export function expiryOf(approval: McpApproval): number {
  return Date.parse(approval.expiresAt);
}

/** Whether two bindings name the same call. */
export function sameBinding(a: ApprovalBinding, b: ApprovalBinding): boolean {
  return a.principal === b.principal && a.tool === b.tool && a.digest === b.digest;
}
