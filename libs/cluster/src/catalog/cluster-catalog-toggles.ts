import { createHash } from 'node:crypto';
import { Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { CatalogToggles, McpCatalogKind } from '#libs/catalog';
import type { McpClusterMessage } from '../backplane/cluster-backplane';
import type { McpCluster } from '../replicas/mcp-cluster';

/** An entry enabled or disabled: which, how, and when and where (to order toggles made at once). */
interface Toggle {
  kind: McpCatalogKind;
  key: string;
  enabled: boolean;
  /** When it was made (ms since the epoch). */
  at: number;
  /** The replica it was made on. */
  from: string;
  /** Its place among the toggles of that replica (several may be made in one millisecond). */
  seq: number;
}

/** The message telling every replica of a toggle. */
const TOGGLED = 'catalog-toggled';
const KINDS: ReadonlySet<unknown> = new Set<McpCatalogKind>(['tool', 'prompt', 'resource', 'resourceTemplate']);

/**
 * The catalog toggles of a cluster (the `cluster` option): a toggle made on one replica is
 * applied on every replica, whose lists then tell their own clients `list_changed`:
 * - it is applied here at once (by `local`, this replica's toggles), then broadcast, and each
 *   replica applies it;
 * - a disabled entry is recorded on the backplane, so that a replica started later hides it too
 *   (enabling it again removes the record);
 * - of toggles of one entry made at once on two replicas, the later (by time, then by replica
 *   name) wins on every replica, whatever order their messages arrive in; a replica's own
 *   message, or any older one, changes nothing.
 */
export class ClusterCatalogToggles implements CatalogToggles, OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('McpCatalog');
  /** The newest toggle applied, per entry. */
  private readonly applied = new Map<string, Toggle>();
  private made = 0;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly local: CatalogToggles,
    private readonly cluster: McpCluster,
  ) {}

  /**
   * Enables or disables an entry here and on every replica.
   * @returns false when this replica has no such entry (nothing is sent then)
   */
  set(kind: McpCatalogKind, key: string, enabled: boolean): boolean {
    if (!this.local.set(kind, key, enabled)) return false;
    const toggle: Toggle = { kind, key, enabled, at: Date.now(), from: this.cluster.replica, seq: ++this.made };
    this.applied.set(entryId(toggle), toggle);
    this.share(toggle).catch((error: Error) =>
      this.logger.warn(
        `${kind} "${key}" was ${enabled ? 'enabled' : 'disabled'} on this replica only: ${error.message}`,
      ),
    );
    return true;
  }

  onModuleInit(): void {
    this.stopListening = this.cluster.on(TOGGLED, (message) => {
      const toggle = toggleOf(message.toggle);
      if (toggle) this.apply(toggle);
    });
  }

  /** Hides what the other replicas disabled before this one started (its entries are registered by now). */
  async onApplicationBootstrap(): Promise<void> {
    const { backplane } = this.cluster;
    const ids = await backplane.indexMembers(this.indexKey(), 0);
    const toggles = await Promise.all(ids.map((id) => backplane.get<unknown>(this.recordKey(id))));
    for (const toggle of toggles.map(toggleOf)) if (toggle) this.apply(toggle);
  }

  onModuleDestroy(): void {
    this.stopListening?.();
  }

  /** Applies a toggle made on any replica, unless a newer one of that entry was applied. */
  private apply(toggle: Toggle): void {
    const id = entryId(toggle);
    const last = this.applied.get(id);
    if (last && !isLater(toggle, last)) return;
    this.applied.set(id, toggle);
    this.local.set(toggle.kind, toggle.key, toggle.enabled);
  }

  /** Records the toggle for replicas started later, then tells the running ones. */
  private async share(toggle: Toggle): Promise<void> {
    const { backplane } = this.cluster;
    const id = entryId(toggle);
    if (toggle.enabled) {
      await backplane.delete(this.recordKey(id));
      await backplane.indexRemove(this.indexKey(), id);
    } else {
      await backplane.set(this.recordKey(id), toggle);
      await backplane.indexAdd(this.indexKey(), id, Number.MAX_SAFE_INTEGER);
    }
    await this.cluster.broadcast({ type: TOGGLED, toggle } satisfies McpClusterMessage);
  }

  private recordKey(id: string): string {
    return this.cluster.key('catalog', 'disabled', id);
  }

  private indexKey(): string {
    return this.cluster.key('catalog', 'disabled');
  }
}

/** Whether `toggle` was made after `other`: by time, then by replica name, then in that replica's order. */
function isLater(toggle: Toggle, other: Toggle): boolean {
  if (toggle.at !== other.at) return toggle.at > other.at;
  if (toggle.from !== other.from) return toggle.from > other.from;
  return toggle.seq > other.seq;
}

/** An entry's id in the keys: hashed, as a resource URI may hold any character. */
function entryId({ kind, key }: Pick<Toggle, 'kind' | 'key'>): string {
  return createHash('sha256').update(`${kind}\n${key}`).digest('base64url');
}

/** The toggle a message or record carries, if it is one. */
function toggleOf(value: unknown): Toggle | undefined {
  const toggle = value as Partial<Toggle> | null | undefined;
  return toggle &&
    KINDS.has(toggle.kind) &&
    typeof toggle.key === 'string' &&
    typeof toggle.enabled === 'boolean' &&
    typeof toggle.at === 'number' &&
    typeof toggle.from === 'string' &&
    typeof toggle.seq === 'number'
    ? (toggle as Toggle)
    : undefined;
}
