import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import { isHostOrAddress } from '#libs/security';
import type { VirtualServersDocument } from '../document/virtual-servers.document';
import type { FileVirtualServersStore } from '../store/file-virtual-servers.store';
import type { VirtualServersStore } from '../store/virtual-servers.store';

/**
 * Virtual servers managed at run time (option `virtualServers` of `McpModule`): upstream MCP
 * servers added, changed and removed through the admin API (`<admin>/api/servers`) instead of a
 * code change and a redeploy, stored durably, validated before they apply, applied on every
 * replica, audited, and exported and imported as one JSON document. See docs/virtual-servers.md.
 *
 * @example
 * ```ts
 * virtualServers: true                                                   // config/virtual-servers.json
 * virtualServers: { store: new PostgresVirtualServersStore({ connectionString }), allowHosts: ['wiki.internal'] }
 * virtualServers: { seed: { servers: [{ name: 'readonly', path: '/mcp/readonly', select: [{ from: 'local', entries: ['get_*'] }] }] } }
 * ```
 */
export interface McpVirtualServersOptions {
  /** Where they are stored. @default a `FileVirtualServersStore` on `file` */
  store?: VirtualServersStore;
  /** The default store's file. @default 'config/virtual-servers.json' */
  file?: string;
  /**
   * Hosts an upstream or API added at run time may be on although they are (or resolve to)
   * non-public addresses, which are refused otherwise (an administrator's URL must not reach the
   * host's own network unless meant). A name allowed may resolve to any address but a cloud
   * metadata one; an address allowed (in any spelling) is reached whatever it is, the only way to
   * a metadata address. Checked on every address at every connection. @default []
   */
  allowHosts?: string[];
  /**
   * Allow loopback, private, CGNAT, unique-local and link-local addresses for every host (a host
   * whose whole network is trusted); never a cloud metadata address, nor this host's own port.
   * @default false
   */
  allowPrivateNetworks?: boolean;
  /** How often a replica reads the store for a change whose word it missed (ms). @default 30_000 */
  resyncMs?: number;
  /**
   * What the store starts with when it holds nothing yet (a first start): upstreams and composed
   * servers, validated as a change through the admin API is (a problem stops the start), stored
   * and audited as `virtualServers.seed`'s. Once stored, the store is what counts. @default none
   */
  seed?: Partial<Pick<VirtualServersDocument, 'upstreams' | 'servers' | 'apis'>>;
}

/** `McpVirtualServersOptions` validated; `undefined` when off. */
export interface VirtualServersOptions {
  readonly store: VirtualServersStore;
  readonly allowHosts: readonly string[];
  readonly allowPrivateNetworks: boolean;
  readonly resyncMs: number;
  readonly seed: Partial<Pick<VirtualServersDocument, 'upstreams' | 'servers' | 'apis'>> | undefined;
}

/** Token of the resolved `VirtualServersOptions` (`undefined` without the option). */
export const MCP_VIRTUAL_SERVERS_OPTIONS = Symbol('MCP:VIRTUAL_SERVERS_OPTIONS');

/** Injects the `VirtualServersOptions`. */
export const InjectVirtualServersOptions = (): ParameterDecorator => Inject(MCP_VIRTUAL_SERVERS_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const VIRTUAL_SERVERS_OPTION_KEYS = ['virtualServers'] as const;

const KEYS = new Set(['store', 'file', 'allowHosts', 'allowPrivateNetworks', 'resyncMs', 'seed']);

/** Validates the `virtualServers` option (every problem reported with its fix). */
export function resolveVirtualServersOptions(
  o: Record<string, unknown>,
  report: OptionReport,
): VirtualServersOptions | undefined {
  let given = o.virtualServers;
  if (given === undefined || given === false) return undefined;
  if (given === true) given = {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report(
      'virtualServers',
      'must be an object, true or false',
      "e.g. virtualServers: { file: 'config/virtual-servers.json' }",
    );
    return undefined;
  }
  const v = given as McpVirtualServersOptions & Record<string, unknown>;
  optionChecks(v, report, 'virtualServers.').known(KEYS);
  const store = v.store;
  if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.save !== 'function'))
    report(
      'virtualServers.store',
      'must implement VirtualServersStore',
      'pass new PostgresVirtualServersStore({ connectionString }), or leave store out for the file',
    );
  if (store !== undefined && v.file !== undefined)
    report(
      'virtualServers.file',
      'only applies to the default store, but a store is given',
      'remove file, or remove store',
    );
  if (v.file !== undefined && (typeof v.file !== 'string' || !v.file))
    report('virtualServers.file', 'must be a non-empty string', "e.g. file: 'config/virtual-servers.json'");
  const allowHosts = v.allowHosts ?? [];
  if (!Array.isArray(allowHosts) || allowHosts.some((host) => typeof host !== 'string' || !host))
    report(
      'virtualServers.allowHosts',
      'must be an array of host names or addresses',
      "e.g. allowHosts: ['wiki.internal', '10.0.3.7']",
    );
  else
    for (const host of allowHosts as string[])
      if (!isHostOrAddress(host))
        report(
          'virtualServers.allowHosts',
          `"${host}" is not a host name or an IP address`,
          "give the host alone, without scheme, port or path: e.g. 'wiki.internal' or '10.0.3.7'",
        );
  if (v.allowPrivateNetworks !== undefined && typeof v.allowPrivateNetworks !== 'boolean')
    report('virtualServers.allowPrivateNetworks', 'must be true or false', 'leave it out to refuse private addresses');
  const resyncMs = v.resyncMs ?? 30_000;
  if (!Number.isInteger(resyncMs) || resyncMs < 1_000)
    report(
      'virtualServers.resyncMs',
      `must be an integer ≥ 1000, got ${JSON.stringify(resyncMs)}`,
      'leave it out for 30000',
    );
  const seed = v.seed;
  if (seed !== undefined && (typeof seed !== 'object' || seed === null || Array.isArray(seed)))
    report(
      'virtualServers.seed',
      'must be an object: { upstreams?, servers? }',
      "e.g. seed: { servers: [{ name: 'readonly', path: '/mcp/readonly', select: [{ from: 'local' }] }] }",
    );
  return {
    seed: typeof seed === 'object' && seed !== null && !Array.isArray(seed) ? seed : undefined,
    store:
      typeof store?.save === 'function'
        ? store
        : fileStore(typeof v.file === 'string' && v.file ? v.file : 'config/virtual-servers.json'),
    allowHosts: Array.isArray(allowHosts) ? allowHosts.filter((host) => typeof host === 'string') : [],
    allowPrivateNetworks: v.allowPrivateNetworks === true,
    resyncMs: Number.isInteger(resyncMs) ? resyncMs : 30_000,
  };
}

/** The default store, required only when virtual servers are on without a store of their own. */
function fileStore(file: string): FileVirtualServersStore {
  type Module = typeof import('../store/file-virtual-servers.store');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FileVirtualServersStore } = require('../store/file-virtual-servers.store') as Module;
  return new FileVirtualServersStore(file);
}
