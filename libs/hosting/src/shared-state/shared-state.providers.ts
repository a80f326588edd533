import type { InjectionToken, Provider, Type } from '@nestjs/common';
import {
  ClusterAnswerClaims,
  ClusterApprovalLedger,
  ClusterCatalogToggles,
  ClusterResourceUpdates,
  ClusterSessionRelay,
  ClusterSessionStore,
  ClusterStreams,
  ClusterTaskReplicas,
  ClusterTaskStore,
  McpCluster,
} from '#libs/cluster';
import { CATALOG_TOGGLES, LocalCatalogToggles, PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { InMemoryApprovalLedger, MCP_APPROVAL_LEDGER } from '#libs/invocation';
import {
  InMemoryAnswerClaims,
  InMemoryTaskStore,
  LocalSessionRelay,
  LocalStreams,
  LocalTaskReplicas,
  MCP_ANSWER_CLAIMS,
  MCP_PROTOCOL_OPTIONS,
  MCP_SESSION_RELAY,
  MCP_SHARED_STREAMS,
  MCP_TASK_REPLICAS,
  MCP_TASK_STORE,
  SessionStore,
  type McpTaskStore,
  type ProtocolOptions,
} from '#libs/protocol';
import { LocalResourceUpdates, MCP_RESOURCE_UPDATES } from '#libs/resources';
import { DependencyHealth } from '#libs/operations';
import type { SharedState } from './shared-state';

/** Token of the host's `SharedState`. */
const MCP_SHARED_STATE = Symbol('MCP:SHARED_STATE');

/** What the pieces of the shared state are built from. */
interface SharedStateDeps {
  readonly protocol: ProtocolOptions;
  readonly tools: ToolRegistry;
  readonly prompts: PromptRegistry;
  readonly resources: ResourceRegistry;
}

/** One replica: every piece in process memory. */
function inProcessState({ protocol, tools, prompts, resources }: SharedStateDeps): SharedState {
  return {
    sessions: new SessionStore(protocol),
    relay: new LocalSessionRelay(),
    streams: new LocalStreams(),
    claims: new InMemoryAnswerClaims(protocol),
    tasks: new InMemoryTaskStore(),
    taskReplicas: new LocalTaskReplicas(),
    resourceUpdates: new LocalResourceUpdates(),
    toggles: new LocalCatalogToggles(tools, prompts, resources),
    approvals: new InMemoryApprovalLedger(),
    readiness: [],
  };
}

/** Several replicas: every piece on the cluster's backplane. */
function clusterState(cluster: McpCluster, { protocol, tools, prompts, resources }: SharedStateDeps): SharedState {
  const sessions = new ClusterSessionStore(protocol, cluster);
  return {
    sessions,
    relay: new ClusterSessionRelay(sessions, cluster),
    streams: new ClusterStreams(cluster),
    claims: new ClusterAnswerClaims(cluster),
    tasks: new ClusterTaskStore(cluster),
    taskReplicas: new ClusterTaskReplicas(cluster),
    resourceUpdates: new ClusterResourceUpdates(new LocalResourceUpdates(), cluster),
    toggles: new ClusterCatalogToggles(new LocalCatalogToggles(tools, prompts, resources), cluster),
    approvals: new ClusterApprovalLedger(cluster),
    // A replica that cannot reach the backplane serves no session: it is not ready.
    readiness: [{ name: 'cluster', required: true, check: () => cluster.backplane.ping() }],
  };
}

/** Provides `token` as one piece of the shared state. */
function piece(token: InjectionToken, name: keyof SharedState): Provider {
  return { provide: token, useFactory: (state: SharedState) => state[name], inject: [MCP_SHARED_STATE] };
}

/**
 * The state the replicas of a host share, chosen once, here: in process without the `cluster`
 * option, on its backplane with it. Each piece is then provided under the token of the library
 * that owns its interface; nothing else asks whether there is a cluster.
 */
export const SHARED_STATE_PROVIDERS: Provider[] = [
  {
    provide: MCP_SHARED_STATE,
    useFactory: (
      cluster: McpCluster,
      protocol: ProtocolOptions,
      tools: ToolRegistry,
      prompts: PromptRegistry,
      resources: ResourceRegistry,
      health: DependencyHealth,
    ) => {
      const deps: SharedStateDeps = { protocol, tools, prompts, resources };
      const state = cluster.enabled ? clusterState(cluster, deps) : inProcessState(deps);
      for (const check of state.readiness) health.register(check);
      return state;
    },
    inject: [McpCluster, MCP_PROTOCOL_OPTIONS, ToolRegistry, PromptRegistry, ResourceRegistry, DependencyHealth],
  },
  piece(SessionStore, 'sessions'),
  piece(MCP_SESSION_RELAY, 'relay'),
  piece(MCP_SHARED_STREAMS, 'streams'),
  piece(MCP_ANSWER_CLAIMS, 'claims'),
  piece(MCP_TASK_REPLICAS, 'taskReplicas'),
  piece(MCP_RESOURCE_UPDATES, 'resourceUpdates'),
  piece(CATALOG_TOGGLES, 'toggles'),
  piece(MCP_APPROVAL_LEDGER, 'approvals'),
];

/**
 * The task store: the class given as the `taskStore` extra, else the shared state's (in memory,
 * or on the cluster's backplane).
 */
export function taskStoreProvider(given: Type<McpTaskStore> | undefined): Provider {
  return given ? { provide: MCP_TASK_STORE, useClass: given } : piece(MCP_TASK_STORE, 'tasks');
}
