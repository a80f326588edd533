import type { CatalogToggles, PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import type { GovernancePolicyStore } from '#libs/governance';
import type { ApprovalLedger } from '#libs/invocation';
import type { ConfigChanges, McpHealthCheck, ReplicaHistories } from '#libs/operations';
import type {
  AnswerClaims,
  McpTaskStore,
  ProtocolOptions,
  SessionRelay,
  SessionStore,
  SharedStreams,
  TaskReplicas,
} from '#libs/protocol';
import type { ResourceUpdates } from '#libs/resources';
import type { AuthorizationServerStore } from '#libs/authorization-server';
import type { UserConnectionStore } from '#libs/downstream-identity';

/**
 * What the replicas of a host share, piece by piece, each behind the interface of the library
 * that owns it: in process memory for one replica (`inProcessState`), on the backplane with the
 * `cluster` option (the cluster library's `ClusterState`). `sharedStateProviders` chooses which,
 * once.
 */
export interface SharedState {
  /** The sessions of the 2025 revisions (their records; each replica holds its own copies). */
  readonly sessions: SessionStore;
  /** What a client sends to one replica for a call or a stream another has. */
  readonly relay: SessionRelay;
  /** The SSE streams of requests, for a reconnection that reaches another replica. */
  readonly streams: SharedStreams;
  /** The answers of 2026-07-28 retries that authorise something, each usable once. */
  readonly claims: AnswerClaims;
  /** The default task store (the `taskStore` extra replaces it). */
  readonly tasks: McpTaskStore;
  /** What the task runners carry to the replica running a task's call. */
  readonly taskReplicas: TaskReplicas;
  /** How `McpResourceNotifier.resourceUpdated` reaches the subscribed clients. */
  readonly resourceUpdates: ResourceUpdates;
  /** `McpCatalog.enable` and `disable`. */
  readonly toggles: CatalogToggles;
  /** The approval requests of confirmed calls. */
  readonly approvals: ApprovalLedger;
  /** The authorization server's state (when it is on): codes, refresh tokens, clients, `jti`s, keys. */
  readonly authorizationServer: AuthorizationServerStore;
  /** The accounts people connected (unless `downstream.connections.store` names a store of its own). */
  readonly userConnections: UserConnectionStore;
  /** The governance policies set at run time through the admin API (applied on every replica). */
  readonly policies: GovernancePolicyStore;
  /** Configuration stored at run time (the virtual servers): the word that it changed. */
  readonly configChanges: ConfigChanges;
  /** The replicas' last hours of tool calls, for the dashboard's charts of each. */
  readonly histories: ReplicaHistories;
  /** What readiness checks of it (nothing in process; the backplane, required, in a cluster). */
  readonly readiness: readonly McpHealthCheck[];
}

/** What the pieces of the shared state are built from. */
export interface SharedStateDeps {
  readonly protocol: ProtocolOptions;
  readonly tools: ToolRegistry;
  readonly prompts: PromptRegistry;
  readonly resources: ResourceRegistry;
}
