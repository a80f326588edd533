import { Inject } from '@nestjs/common';
import type { McpCatalogKind } from './catalog-lists';

/**
 * Enables and disables catalog entries at run time (what `McpCatalog.enable` and `disable` do).
 * One replica changes its own lists (`LocalCatalogToggles`); with the `cluster` option a toggle
 * applies on every replica (the cluster library's implementation), each telling its clients
 * `list_changed`.
 */
export interface CatalogToggles {
  /**
   * Enables or disables an entry.
   * @returns false when this replica has no such entry (nothing changes anywhere then)
   */
  set(kind: McpCatalogKind, key: string, enabled: boolean): boolean;
}

/** Token of the `CatalogToggles` (the hosting module provides the one its options ask for). */
export const CATALOG_TOGGLES = Symbol('MCP:CATALOG_TOGGLES');

/** Injects the `CatalogToggles`. */
export const InjectCatalogToggles = () => Inject(CATALOG_TOGGLES);
