import type { OptionReport } from '#libs/core';
import type { CatalogPinStore } from './catalog-pin.store';

/** What happens to an entry a pinned upstream or API lists for the first time, after its first listing. */
export type McpNewEntries = 'accept' | 'hold';

/**
 * `pin` of an upstream (`gateway.upstreams[].pin`) or an API (`rest.apis[].pin`): its
 * definitions are fingerprinted when first accepted, and a changed one is quarantined until an
 * approver accepts the difference (docs/governance.md, "Pinned catalogs").
 * `true` pins with the module's default for new entries (`governance.pinning.newEntries`).
 * @example
 * ```ts
 * gateway: { upstreams: [{ name: 'wiki', transport: { … }, pin: { newEntries: 'hold' } }] }
 * ```
 */
export type McpPinOption = boolean | { newEntries?: McpNewEntries };

/** A `pin` option validated: `undefined` when not pinned; `newEntries` absent: the module's default. */
export interface PinScope {
  readonly newEntries?: McpNewEntries;
}

/**
 * `governance.pinning`: module-wide settings of pinned catalogs.
 * @example
 * ```ts
 * governance: { pinning: { newEntries: 'hold', store: new FileCatalogPinStore('state/catalog-pins.json') } }
 * ```
 */
export interface McpPinningOptions {
  /** New entries of a pinned upstream or API (after its first listing, which is accepted whole). @default 'accept' */
  newEntries?: McpNewEntries;
  /** Where the pins are kept. @default in memory (one replica; accepted again on first use after a restart) */
  store?: CatalogPinStore;
  /** How often a shared store is read again for approvals made on other replicas (ms). @default 10_000 */
  resyncMs?: number;
}

/** `McpPinningOptions` validated. */
export interface PinningOptions {
  readonly newEntries: McpNewEntries;
  readonly store: CatalogPinStore | undefined;
  readonly resyncMs: number;
}

const NEW_ENTRIES: readonly McpNewEntries[] = ['accept', 'hold'];
const PINNING_KEYS = new Set(['newEntries', 'store', 'resyncMs']);

/** Validates a `pin` option (`gateway.upstreams[i].pin`, `rest.apis[i].pin`). */
export function resolvePinOption(value: unknown, where: string, report: OptionReport): PinScope | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(where, 'must be true, false or { newEntries }', "pin: true, or pin: { newEntries: 'hold' }");
    return undefined;
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (key !== 'newEntries') report(`${where}.${key}`, 'is not a known option', 'known: newEntries');
  if (given.newEntries !== undefined && !NEW_ENTRIES.includes(given.newEntries as McpNewEntries)) {
    report(`${where}.newEntries`, `must be one of ${NEW_ENTRIES.join(', ')}`, "newEntries: 'hold'");
    return {};
  }
  return given.newEntries === undefined ? {} : { newEntries: given.newEntries as McpNewEntries };
}

/** Validates `governance.pinning`. */
export function resolvePinningOptions(value: unknown, where: string, report: OptionReport): PinningOptions {
  const defaults: PinningOptions = { newEntries: 'accept', store: undefined, resyncMs: 10_000 };
  if (value === undefined) return defaults;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(where, 'must be an object', "pinning: { newEntries: 'hold' }");
    return defaults;
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!PINNING_KEYS.has(key))
      report(`${where}.${key}`, 'is not a known option', `known: ${[...PINNING_KEYS].join(', ')}`);
  if (given.newEntries !== undefined && !NEW_ENTRIES.includes(given.newEntries as McpNewEntries))
    report(`${where}.newEntries`, `must be one of ${NEW_ENTRIES.join(', ')}`, "newEntries: 'hold'");
  const store = given.store as CatalogPinStore | undefined;
  if (
    store !== undefined &&
    (typeof store !== 'object' ||
      store === null ||
      typeof store.load !== 'function' ||
      typeof store.save !== 'function')
  )
    report(
      `${where}.store`,
      'must be a CatalogPinStore (load, save)',
      "store: new FileCatalogPinStore('state/catalog-pins.json'), or leave it out for memory",
    );
  const resyncMs = given.resyncMs;
  if (resyncMs !== undefined && (typeof resyncMs !== 'number' || !Number.isInteger(resyncMs) || resyncMs < 100))
    report(`${where}.resyncMs`, 'must be an integer of at least 100 (ms)', 'resyncMs: 10000');
  return {
    newEntries: NEW_ENTRIES.includes(given.newEntries as McpNewEntries)
      ? (given.newEntries as McpNewEntries)
      : 'accept',
    store: typeof store?.load === 'function' ? store : undefined,
    resyncMs: typeof resyncMs === 'number' && Number.isInteger(resyncMs) && resyncMs >= 100 ? resyncMs : 10_000,
  };
}
