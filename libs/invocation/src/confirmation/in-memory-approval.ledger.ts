import type { ApprovalBinding, McpApproval } from './mcp-approval';
import { KEEP_DECIDED_MS, sameBinding, type ApprovalDecision, type ApprovalLedger } from './approval-ledger';

interface Entry {
  approval: McpApproval;
  binding: ApprovalBinding;
  expiresAt: number;
}

/**
 * The approval requests of one process (the default). A request is one object from opening to
 * forgetting: a decision changes it in place, so whoever holds it sees the decision.
 * @internal
 */
export class InMemoryApprovalLedger implements ApprovalLedger {
  private readonly entries = new Map<string, Entry>();
  /** Every decision is made in this process, and wakes its waits itself. */
  readonly recheckMs = Infinity;

  announce(): undefined {
    return undefined;
  }

  onDecided(): () => void {
    return () => undefined;
  }

  async add(approval: McpApproval, binding: ApprovalBinding, expiresAt: number): Promise<void> {
    this.entries.set(approval.id, { approval, binding, expiresAt });
  }

  async get(id: string): Promise<McpApproval | undefined> {
    return this.entries.get(id)?.approval;
  }

  async ofCall(binding: ApprovalBinding): Promise<McpApproval[]> {
    return [...this.entries.values()].filter((entry) => sameBinding(entry.binding, binding)).map((e) => e.approval);
  }

  async pendingOf(principal: string): Promise<number> {
    return [...this.entries.values()].filter(
      (entry) => entry.binding.principal === principal && entry.approval.status === 'pending',
    ).length;
  }

  async all(): Promise<McpApproval[]> {
    return [...this.entries.values()].map((entry) => entry.approval);
  }

  async due(now: number): Promise<McpApproval[]> {
    return [...this.entries.values()]
      .filter((entry) => entry.approval.status === 'pending' && entry.expiresAt <= now)
      .map((entry) => entry.approval);
  }

  async decide(id: string, decision: ApprovalDecision): Promise<McpApproval | undefined> {
    const approval = this.entries.get(id)?.approval;
    if (approval?.status !== 'pending') return undefined;
    return Object.assign(approval, decision);
  }

  async use(id: string): Promise<McpApproval | undefined> {
    const approval = this.entries.get(id)?.approval;
    if (approval?.status !== 'approved') return undefined;
    approval.status = 'used';
    return approval;
  }

  async forget(now: number): Promise<boolean> {
    for (const [id, entry] of this.entries)
      if (entry.approval.status !== 'pending' && entry.expiresAt + KEEP_DECIDED_MS <= now) this.entries.delete(id);
    return this.entries.size > 0;
  }
}
