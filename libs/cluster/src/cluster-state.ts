import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { LocalCatalogToggles, type PromptRegistry, type ResourceRegistry, type ToolRegistry } from '#libs/catalog';
import type { ProtocolOptions } from '#libs/protocol';
import { LocalResourceUpdates } from '#libs/resources';
import type { McpHealthCheck } from '#libs/operations';
import { ClusterApprovalLedger } from './approvals/cluster-approval.ledger';
import { ClusterCatalogToggles } from './catalog/cluster-catalog-toggles';
import { ClusterPolicyStore } from './governance/cluster-policy-store';
import { ClusterConfigChanges } from './config/cluster-config-changes';
import { ClusterReplicaHistories } from './stats/cluster-replica-histories';
import { ClusterAnswerClaims } from './claims/cluster-answer-claims';
import { McpCluster, type ClusterOptions } from './replicas/mcp-cluster';
import { ClusterResourceUpdates } from './resources/cluster-resource-updates';
import { ClusterSessionRelay } from './sessions/cluster-session.relay';
import { ClusterSessionStore } from './sessions/cluster-session.store';
import { ClusterStreams } from './sessions/cluster-streams';
import { ClusterTaskReplicas } from './tasks/cluster-task-replicas';
import { ClusterTaskStore } from './tasks/cluster-task.store';
import { ClusterKeyValueStore } from './identity/cluster-key-value.store';

/** What the host gives the cluster to build its pieces from. */
export interface ClusterStateDeps {
  readonly protocol: ProtocolOptions;
  readonly tools: ToolRegistry;
  readonly prompts: PromptRegistry;
  readonly resources: ResourceRegistry;
}

/**
 * The state the replicas of a host share, on the cluster's backplane: the cluster implementation
 * of every piece, each behind the interface of the library that owns it (the hosting module's
 * shared-state factory makes this with the `cluster` option, and provides each piece under its
 * library's token). Connects the replica at module init — a host that cannot reach the backplane
 * does not start — and lets go of the backplane at shutdown.
 */
export class ClusterState implements OnModuleInit, OnApplicationShutdown {
  readonly cluster: McpCluster;
  readonly sessions: ClusterSessionStore;
  readonly relay: ClusterSessionRelay;
  readonly streams: ClusterStreams;
  readonly claims: ClusterAnswerClaims;
  readonly tasks: ClusterTaskStore;
  readonly taskReplicas: ClusterTaskReplicas;
  readonly resourceUpdates: ClusterResourceUpdates;
  readonly toggles: ClusterCatalogToggles;
  readonly approvals: ClusterApprovalLedger;
  readonly authorizationServer: ClusterKeyValueStore;
  readonly userConnections: ClusterKeyValueStore;
  readonly policies: ClusterPolicyStore;
  readonly configChanges: ClusterConfigChanges;
  readonly histories: ClusterReplicaHistories;
  /** A replica that cannot reach the backplane serves no session: it is not ready. */
  readonly readiness: readonly McpHealthCheck[];

  constructor(options: ClusterOptions, { protocol, tools, prompts, resources }: ClusterStateDeps) {
    const cluster = (this.cluster = new McpCluster(options));
    this.sessions = new ClusterSessionStore(protocol, cluster);
    this.relay = new ClusterSessionRelay(this.sessions, cluster);
    this.streams = new ClusterStreams(cluster);
    this.claims = new ClusterAnswerClaims(cluster);
    this.tasks = new ClusterTaskStore(cluster);
    this.taskReplicas = new ClusterTaskReplicas(cluster);
    // Each replica applies what it hears through its own lists and listeners.
    this.resourceUpdates = new ClusterResourceUpdates(new LocalResourceUpdates(), cluster);
    this.toggles = new ClusterCatalogToggles(new LocalCatalogToggles(tools, prompts, resources), cluster);
    this.approvals = new ClusterApprovalLedger(cluster);
    this.authorizationServer = new ClusterKeyValueStore(cluster, 'oauth');
    this.userConnections = new ClusterKeyValueStore(cluster, 'connections');
    this.policies = new ClusterPolicyStore(cluster);
    this.configChanges = new ClusterConfigChanges(cluster);
    this.histories = new ClusterReplicaHistories(cluster);
    this.readiness = [{ name: 'cluster', required: true, check: () => cluster.backplane.ping() }];
  }

  onModuleInit(): Promise<void> {
    return this.cluster.onModuleInit();
  }

  onApplicationShutdown(): Promise<void> {
    return this.cluster.onApplicationShutdown();
  }
}
