import { LocalCatalogToggles } from '#libs/catalog';
import { InProcessPolicyStore } from '#libs/governance';
import { InMemoryApprovalLedger } from '#libs/invocation';
import {
  InMemoryAnswerClaims,
  InMemoryTaskStore,
  LocalSessionRelay,
  LocalStreams,
  LocalTaskReplicas,
  SessionStore,
} from '#libs/protocol';
import { LocalConfigChanges, LocalReplicaHistories } from '#libs/operations';
import { LocalResourceUpdates } from '#libs/resources';
import { InMemoryAuthorizationServerStore } from '#libs/authorization-server';
import { InMemoryUserConnectionStore } from '#libs/downstream-identity';
import type { SharedState, SharedStateDeps } from './shared-state';

/**
 * One replica: every piece in process memory, nothing to tell anyone else. The pieces of features
 * that may be off (the authorization server, connected accounts, governance) are made when first
 * asked for, so a host without them does not load their stores.
 */
export function inProcessState({ protocol, tools, prompts, resources }: SharedStateDeps): SharedState {
  let authorizationServer: InMemoryAuthorizationServerStore | undefined;
  let userConnections: InMemoryUserConnectionStore | undefined;
  let policies: InProcessPolicyStore | undefined;
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
    get authorizationServer() {
      return (authorizationServer ??= new InMemoryAuthorizationServerStore());
    },
    get userConnections() {
      return (userConnections ??= new InMemoryUserConnectionStore());
    },
    get policies() {
      return (policies ??= new InProcessPolicyStore());
    },
    configChanges: new LocalConfigChanges(),
    histories: new LocalReplicaHistories(),
    readiness: [],
  };
}
