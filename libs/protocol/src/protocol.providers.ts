import type { Provider } from '@nestjs/common';
import { AccessControl } from './admission/access-control';
import { CallAdmission } from './admission/call-admission';
import { CacheHints } from './admission/cache-hints';
import { CallerLists } from './admission/caller-lists';
import { CompletionMethods } from './completion/completion.methods';
import { CallScope } from './calls/call-scope';
import { McpDispatcher } from './dispatch/mcp.dispatcher';
import { StatelessCalls } from './calls/stateless-calls';
import { McpTracing } from './dispatch/mcp-tracing';
import { RequestEvents } from './events/request-events';
import { McpRequestObservers } from './events/request-observers';
import { HostState } from './lifecycle/host-state';
import { InputRounds } from './inputs/input-rounds';
import { RequestStateSealer } from './inputs/request-state.sealer';
import { LifecycleMethods } from './lifecycle/lifecycle.methods';
import { TaskMethods } from './tasks/task.methods';
import { TaskExtensionMethods } from './tasks/task-extension.methods';
import { TaskRunner } from './tasks/task.runner';
import { TaskLife } from './tasks/task-life';
import { TaskHandOff } from './tasks/task-hand-off';
import { TaskQuota } from './tasks/task-quota';
import { TaskExtensionRunner } from './tasks/task-extension.runner';
import { TaskStatusEvents } from './tasks/task-status.events';
import { ChangeNotifications } from './subscriptions/change-notifications';
import { ListenSubscriptions } from './subscriptions/listen-subscriptions';
import { SubscriptionMethods } from './subscriptions/subscription.methods';
import { TaskNotifications } from './tasks/task-notifications';

/**
 * The protocol engine's providers: dispatch, admission, request events, sessions, tasks and the
 * method groups it owns. The module that assembles a host adds the `MCP_METHOD_GROUPS` list
 * (these groups plus the prompts' and resources' own), the option slice, and the pieces of
 * state replicas may share (`SessionStore`, …), in process or the cluster's.
 */
export const PROTOCOL_PROVIDERS: Provider[] = [
  AccessControl,
  CallAdmission,
  CallerLists,
  CacheHints,
  CallScope,
  InputRounds,
  RequestStateSealer,
  StatelessCalls,
  McpDispatcher,
  McpRequestObservers,
  RequestEvents,
  McpTracing,
  HostState,
  TaskLife,
  TaskRunner,
  TaskHandOff,
  TaskQuota,
  TaskExtensionRunner,
  TaskStatusEvents,
  LifecycleMethods,
  CompletionMethods,
  TaskMethods,
  TaskExtensionMethods,
  ListenSubscriptions,
  ChangeNotifications,
  SubscriptionMethods,
  TaskNotifications,
];

/** The method groups of the engine itself, to put first in `MCP_METHOD_GROUPS`. */
export const ENGINE_METHOD_GROUPS = [
  LifecycleMethods,
  CompletionMethods,
  TaskMethods,
  TaskExtensionMethods,
  SubscriptionMethods,
] as const;
