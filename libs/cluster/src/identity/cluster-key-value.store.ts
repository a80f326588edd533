import type { AuthorizationServerStore } from '#libs/authorization-server';
import type { UserConnectionStore } from '#libs/downstream-identity';
import type { McpCluster } from '../replicas/mcp-cluster';

/** The part of a key its listing goes by: up to its first `:` or `|` (`grant:`, `conn|`), or the whole key. */
function groupOf(key: string): string {
  const end = key.search(/[:|]/);
  return end === -1 ? key : key.slice(0, end + 1);
}

/**
 * The authorization server's state (`AuthorizationServerStore`) and the accounts people connected
 * (`UserConnectionStore`), on the cluster's backplane, so that every replica serves the facade: a
 * code issued by one is redeemed at another, a refresh token rotated on one is spent on all, an
 * ID-JAG's `jti` claimed on one is refused on every other (`setIfAbsent`), a key rotated on one
 * signs on all. Each value is a key of its own with its expiry; `list` goes by an index per group
 * of keys (`grant:`, `conn|`) whose members expire with their values (`count` reads it). `take`
 * is the backplane's atomic take; `increment`, its atomic append's sequence. A backplane that cannot be reached makes every operation reject: the facade then
 * refuses the request (fail-closed), it never issues what it could not record.
 * @internal
 */
export class ClusterKeyValueStore implements AuthorizationServerStore, UserConnectionStore {
  constructor(
    private readonly cluster: McpCluster,
    /** Keeps the facade's keys apart from the connections' (`oauth`, `connections`). */
    private readonly area: string,
  ) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    const backplane = this.cluster.backplane;
    await backplane.set(this.keyOf(key), value, ttlMs);
    await backplane.indexAdd(this.indexOf(key), key, Date.now() + ttlMs);
  }

  get(key: string): Promise<string | undefined> {
    return this.cluster.backplane.get<string>(this.keyOf(key));
  }

  async take(key: string): Promise<string | undefined> {
    const value = await this.cluster.backplane.take<string>(this.keyOf(key));
    if (value !== undefined) await this.cluster.backplane.indexRemove(this.indexOf(key), key);
    return value;
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return this.cluster.backplane.setIfAbsent(this.keyOf(key), '1', ttlMs);
  }

  async delete(key: string): Promise<void> {
    await this.cluster.backplane.delete(this.keyOf(key));
    await this.cluster.backplane.indexRemove(this.indexOf(key), key);
  }

  async list(prefix: string): Promise<[string, string][]> {
    const backplane = this.cluster.backplane;
    const keys = (await backplane.indexMembers(this.indexOf(prefix), Date.now())).filter((key) =>
      key.startsWith(prefix),
    );
    const values = await Promise.all(keys.map((key) => backplane.get<string>(this.keyOf(key))));
    return keys.flatMap((key, index) =>
      values[index] === undefined ? [] : [[key, values[index]] as [string, string]],
    );
  }

  /** A one-entry list's sequence is the counter: `append` is atomic on every backplane, and moves the expiry on. */
  increment(key: string, ttlMs: number): Promise<number> {
    return this.cluster.backplane.append(this.keyOf(key), '', 1, ttlMs);
  }

  async count(prefix: string): Promise<number> {
    const members = await this.cluster.backplane.indexMembers(this.indexOf(prefix), Date.now());
    return members.filter((key) => key.startsWith(prefix)).length;
  }

  private keyOf(key: string): string {
    return this.cluster.key(this.area, 'entry', key);
  }

  private indexOf(key: string): string {
    return this.cluster.key(this.area, 'index', groupOf(key));
  }
}
