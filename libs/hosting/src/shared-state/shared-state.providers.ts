import type { InjectionToken, Provider, Type } from '@nestjs/common';
import { CATALOG_TOGGLES, PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { MCP_PIN_CHANGES, MCP_POLICY_STORE } from '#libs/governance';
import { MCP_APPROVAL_LEDGER } from '#libs/invocation';
import { DependencyHealth, MCP_CONFIG_CHANGES, MCP_REPLICA_HISTORIES } from '#libs/operations';
import {
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
import { MCP_RESOURCE_UPDATES } from '#libs/resources';
import {
  MCP_AUTHORIZATION_SERVER_OPTIONS,
  MCP_AUTHORIZATION_SERVER_STORE,
  type AuthorizationServerOptions,
} from '#libs/authorization-server';
import { MCP_DOWNSTREAM_OPTIONS, MCP_USER_CONNECTION_STORE, type DownstreamOptions } from '#libs/downstream-identity';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '../options/mcp-options.resolver';
import { inProcessState } from './in-process-state';
import type { McpFeatureSwitches } from '../features/mcp-features';
import type { SharedState, SharedStateDeps } from './shared-state';

/** Token of the host's `SharedState`. */
const MCP_SHARED_STATE = Symbol('MCP:SHARED_STATE');

/**
 * The one place that decides whether the host is one replica or several. Without the `cluster`
 * option every piece is in process memory; with it, every piece is the cluster library's, which
 * is required here and only then: a host without the option loads no file of `libs/cluster`.
 */
function sharedStateOf(options: ResolvedMcpOptions, deps: SharedStateDeps, health: DependencyHealth): SharedState {
  const { backplane, replica, namespace } = options.cluster;
  let state: SharedState;
  if (backplane === undefined) state = inProcessState(deps);
  else {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ClusterState } = require('#libs/cluster') as typeof import('#libs/cluster');
    state = new ClusterState({ backplane, replica, namespace }, deps);
  }
  for (const check of state.readiness) health.register(check);
  return state;
}

/** Provides `token` as one piece of the shared state. */
function piece(token: InjectionToken, name: keyof SharedState): Provider {
  return { provide: token, useFactory: (state: SharedState) => state[name], inject: [MCP_SHARED_STATE] };
}

/**
 * The state the replicas of a host share, chosen once (`sharedStateOf`, when the options are
 * resolved: they may come from `forRootAsync`), each piece then provided under the token of the
 * library that owns its interface; the pieces of a feature the module leaves out are not. Nothing
 * else asks whether there is a cluster.
 */
export function sharedStateProviders(
  on: Pick<McpFeatureSwitches, 'authorizationServer' | 'downstream' | 'governance'>,
): Provider[] {
  return [
    {
      provide: MCP_SHARED_STATE,
      useFactory: (
        options: ResolvedMcpOptions,
        protocol: ProtocolOptions,
        tools: ToolRegistry,
        prompts: PromptRegistry,
        resources: ResourceRegistry,
        health: DependencyHealth,
      ) => sharedStateOf(options, { protocol, tools, prompts, resources }, health),
      inject: [
        MCP_RESOLVED_OPTIONS,
        MCP_PROTOCOL_OPTIONS,
        ToolRegistry,
        PromptRegistry,
        ResourceRegistry,
        DependencyHealth,
      ],
    },
    piece(SessionStore, 'sessions'),
    piece(MCP_SESSION_RELAY, 'relay'),
    piece(MCP_SHARED_STREAMS, 'streams'),
    piece(MCP_ANSWER_CLAIMS, 'claims'),
    piece(MCP_TASK_REPLICAS, 'taskReplicas'),
    piece(MCP_RESOURCE_UPDATES, 'resourceUpdates'),
    piece(CATALOG_TOGGLES, 'toggles'),
    piece(MCP_APPROVAL_LEDGER, 'approvals'),
    ...(on.authorizationServer
      ? [
          {
            // A store the options name (PostgreSQL, say) wins over the shared state's.
            provide: MCP_AUTHORIZATION_SERVER_STORE,
            useFactory: (options: AuthorizationServerOptions | undefined, state: SharedState) =>
              options?.store ?? state.authorizationServer,
            inject: [MCP_AUTHORIZATION_SERVER_OPTIONS, MCP_SHARED_STATE],
          },
        ]
      : []),
    ...(on.downstream
      ? [
          {
            // A store the options name (PostgreSQL, say) wins over the shared state's.
            provide: MCP_USER_CONNECTION_STORE,
            useFactory: (options: DownstreamOptions, state: SharedState) =>
              options.connections?.store ?? state.userConnections,
            inject: [MCP_DOWNSTREAM_OPTIONS, MCP_SHARED_STATE],
          },
        ]
      : []),
    ...(on.governance ? [piece(MCP_POLICY_STORE, 'policies'), piece(MCP_PIN_CHANGES, 'configChanges')] : []),
    piece(MCP_CONFIG_CHANGES, 'configChanges'),
    piece(MCP_REPLICA_HISTORIES, 'histories'),
  ];
}

/**
 * The task store: the class given as the `taskStore` extra, else the shared state's (in memory,
 * or on the cluster's backplane).
 */
export function taskStoreProvider(given: Type<McpTaskStore> | undefined): Provider {
  return given ? { provide: MCP_TASK_STORE, useClass: given } : piece(MCP_TASK_STORE, 'tasks');
}
