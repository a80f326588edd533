import { createHash } from 'node:crypto';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import {
  expiryOf,
  KEEP_DECIDED_MS,
  type ApprovalBinding,
  type ApprovalDecision,
  type ApprovalLedger,
  type McpApproval,
} from '#libs/invocation';
import type { McpClusterBackplane } from '../backplane/cluster-backplane';
import { ClusterMessages } from '../replicas/cluster.messages';
import type { McpCluster } from '../replicas/mcp-cluster';

/** Told to every replica when a request is decided: whoever waits for it there looks again. */
const DECIDED = 'approval-decided';
/** How often a wait for a decision made on another replica looks again, should its message be lost. */
const RECHECK_MS = 1_000;

/** A request as opened: what never changes after. */
interface OpenedRecord {
  approval: McpApproval;
  binding: ApprovalBinding;
}

/**
 * The approval requests of a cluster (the `cluster` option), on its backplane, so that a request
 * opened on one replica is decided on any and used by the retry on any. A request is three keys:
 * as opened (`approval:<id>`), its decision (`…:decision`) and its use (`…:used`); the last two
 * are written with `setIfAbsent`, so a request is decided once and used once across replicas.
 * Indexes find the requests of a call, a principal's waiting ones, and every one kept. Keys and
 * indexes expire an hour after the request does (as decided requests are kept in memory). A
 * decision is announced to every replica, whose waits for it read it at once.
 * @internal
 */
export class ClusterApprovalLedger implements ApprovalLedger {
  readonly recheckMs = RECHECK_MS;

  constructor(private readonly cluster: McpCluster) {}

  async announce(id: string): Promise<void> {
    await this.cluster.broadcast({ type: DECIDED, id });
  }

  onDecided(listener: (id: string) => void): () => void {
    return this.cluster.on(DECIDED, (message) => {
      if (message.from !== this.cluster.replica && typeof message.id === 'string') listener(message.id);
    });
  }

  async add(approval: McpApproval, binding: ApprovalBinding, expiresAt: number): Promise<void> {
    const keptUntil = expiresAt + KEEP_DECIDED_MS;
    await this.reach(async (backplane) => {
      const record: OpenedRecord = { approval, binding };
      await backplane.set(this.key(approval.id), record, keptUntil - Date.now());
      await Promise.all([
        backplane.indexAdd(this.cluster.key('approvals'), approval.id, keptUntil),
        backplane.indexAdd(this.callKey(binding), approval.id, keptUntil),
        backplane.indexAdd(this.pendingKey(), approval.id, keptUntil),
        backplane.indexAdd(this.pendingKey(binding.principal), approval.id, keptUntil),
      ]);
    });
  }

  get(id: string): Promise<McpApproval | undefined> {
    return this.reach(async (backplane) => {
      const [record, decision, used] = await Promise.all([
        backplane.get<OpenedRecord>(this.key(id)),
        backplane.get<ApprovalDecision>(this.key(id, 'decision')),
        backplane.get<number>(this.key(id, 'used')),
      ]);
      if (!record) return undefined;
      const approval: McpApproval = { ...record.approval, ...decision };
      if (used !== undefined) approval.status = 'used';
      return approval;
    });
  }

  ofCall(binding: ApprovalBinding): Promise<McpApproval[]> {
    return this.members(this.callKey(binding));
  }

  async pendingOf(principal: string): Promise<number> {
    return (await this.reach((backplane) => backplane.indexMembers(this.pendingKey(principal), Date.now()))).length;
  }

  all(): Promise<McpApproval[]> {
    return this.members(this.cluster.key('approvals'));
  }

  async due(now: number): Promise<McpApproval[]> {
    const waiting = await this.members(this.pendingKey());
    return waiting.filter((approval) => approval.status === 'pending' && expiryOf(approval) <= now);
  }

  decide(id: string, decision: ApprovalDecision): Promise<McpApproval | undefined> {
    return this.reach(async (backplane) => {
      const record = await backplane.get<OpenedRecord>(this.key(id));
      if (!record) return undefined;
      const kept = expiryOf(record.approval) + KEEP_DECIDED_MS - Date.now();
      if (!(await backplane.setIfAbsent(this.key(id, 'decision'), decision, Math.max(1, kept)))) return undefined;
      await Promise.all([
        backplane.indexRemove(this.pendingKey(), id),
        backplane.indexRemove(this.pendingKey(record.binding.principal), id),
      ]);
      return { ...record.approval, ...decision };
    });
  }

  async use(id: string): Promise<McpApproval | undefined> {
    const approval = await this.get(id);
    if (approval?.status !== 'approved') return undefined;
    const kept = expiryOf(approval) + KEEP_DECIDED_MS - Date.now();
    const first = await this.reach((backplane) =>
      backplane.setIfAbsent(this.key(id, 'used'), Date.now(), Math.max(1, kept)),
    );
    return first ? { ...approval, status: 'used' } : undefined;
  }

  /** Keys and indexes expire on their own. */
  async forget(): Promise<boolean> {
    return true;
  }

  /** The requests an index names that are still kept. */
  private async members(indexKey: string): Promise<McpApproval[]> {
    const ids = await this.reach((backplane) => backplane.indexMembers(indexKey, Date.now()));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found.filter((approval): approval is McpApproval => approval !== undefined);
  }

  private key(id: string, part?: 'decision' | 'used'): string {
    return part ? this.cluster.key('approval', id, part) : this.cluster.key('approval', id);
  }

  /** The index of one call's requests; hashed, as a principal's id may hold any character. */
  private callKey(binding: ApprovalBinding): string {
    return this.cluster.key('approvals', 'call', digest([binding.principal, binding.tool, binding.digest]));
  }

  /** The index of the waiting requests, of one principal or of all. */
  private pendingKey(principal?: string): string {
    return principal === undefined
      ? this.cluster.key('approvals', 'pending')
      : this.cluster.key('approvals', 'pending', digest([principal]));
  }

  /**
   * Runs `work` on the backplane; while it cannot be reached, fails with a protocol error that
   * says so (`-32603 … retry shortly`, as tasks do): the call is refused, not reported as a crash.
   */
  private async reach<T>(work: (backplane: McpClusterBackplane) => Promise<T>): Promise<T> {
    try {
      return await work(this.cluster.backplane);
    } catch {
      throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, ClusterMessages.unavailable('approval requests'));
    }
  }
}

function digest(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
