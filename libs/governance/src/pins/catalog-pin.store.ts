import type { CatalogPin } from './catalog-pin';

/**
 * Where the pins of upstream and API definitions are kept: in memory (one replica, until it
 * stops: every definition is accepted again on first use after a restart), in a JSON file
 * (`FileCatalogPinStore`: one replica, or a volume replicas share) or in PostgreSQL
 * (`PostgresCatalogPinStore` of `nest-mcp-host/postgres`: replicas share the pins, an approval made
 * on one applies on all). Pins are written one by one (by id); the newest write of a pin wins.
 *
 * @example
 * ```ts
 * governance: { pinning: { store: new PostgresCatalogPinStore({ connectionString: process.env.DATABASE_URL }) } }
 * ```
 */
export interface CatalogPinStore {
  /** Shown in logs: `memory`, `file`, `postgres`. */
  readonly name: string;
  /** Whether other replicas may change it (then it is read again every `pinning.resyncMs`). */
  readonly shared: boolean;
  /** Creates what it needs (a directory, a table). */
  open?(): Promise<void>;
  /** Every pin. */
  load(): Promise<CatalogPin[]>;
  /** Keeps these pins, each replacing the one with its id. */
  save(pins: readonly CatalogPin[]): Promise<void>;
  close?(): Promise<void>;
}

/** One replica, in memory. */
export class InMemoryCatalogPinStore implements CatalogPinStore {
  readonly name = 'memory';
  readonly shared = false;
  private readonly pins = new Map<string, CatalogPin>();

  load(): Promise<CatalogPin[]> {
    return Promise.resolve([...this.pins.values()]);
  }

  save(pins: readonly CatalogPin[]): Promise<void> {
    for (const pin of pins) this.pins.set(pin.id, pin);
    return Promise.resolve();
  }
}
