import type { CatalogToggles } from '#libs/catalog';
import type { ApprovalLedger } from '#libs/invocation';

/**
 * What the replicas of a host share, piece by piece, each behind the interface of the library
 * that owns it: in process memory for one replica, on the cluster's backplane with the `cluster`
 * option. `sharedStateProviders` chooses which, once.
 */
export interface SharedState {
  /** `McpCatalog.enable` and `disable`. */
  readonly toggles: CatalogToggles;
  /** The approval requests of confirmed calls. */
  readonly approvals: ApprovalLedger;
}
