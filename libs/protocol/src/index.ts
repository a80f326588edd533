// The protocol engine: dispatch, admission, sessions, tasks, lifecycle. Imported by the other libraries of the package.
export { AccessDeniedError, AccessControl } from './admission/access-control';
export { CallAdmission, type CallRequest } from './admission/call-admission';
export { CallerLists } from './admission/caller-lists';
export { CacheHints } from './admission/cache-hints';
export { sensitiveFieldsOfEntry } from './admission/sensitive-fields.cache';
export { CompletionMethods } from './completion/completion.methods';
export {
  classify,
  resultResponse,
  errorResponse,
  notification,
  PARSE_ERROR_RESPONSE,
  type JsonRpcId,
  type JsonRpcMessage,
  type MessageKind,
} from './wire/json-rpc';
export { McpDispatcher } from './dispatch/mcp.dispatcher';
export {
  EMPTY_RESULT,
  MCP_METHOD_GROUPS,
  type ClientInputs,
  type MethodHandler,
  type McpMethods,
} from './methods/method-handler';
export { mcpRequest, type McpRequest, type McpRequestParts, type McpRequestHeaders } from './requests/mcp-request';
export type { McpAnswer, ReplyChannel } from './requests/reply-channel';
export type { AdmittedCall } from './admission/admitted-call';
export { CallScope, type CallRun } from './calls/call-scope';
export {
  MCP_METHODS,
  MCP_METHOD_NAMES,
  MCP_REQUEST_METHODS,
  traitsOf,
  routingParamOf,
  type McpMethodName,
  type McpMethodTraits,
  type McpRequestMethod,
} from './wire/mcp-method.table';
export {
  DEFAULT_REQUEST_LIMITS,
  checkRequestLimits,
  RequestLimitError,
  type RequestLimits,
} from './wire/request-limits';
export { StatelessCalls } from './calls/stateless-calls';
export { type McpEntryKind, type McpRequestEvent, type McpRequestObserver } from './events/mcp-request-event';
export { MCP_TRACER_NAME, McpTracing } from './dispatch/mcp-tracing';
export { RequestNote } from './events/request-note';
export { McpRequestObservers } from './events/request-observers';
export { RequestEvents, outcomeOfCode, outcomeOfStatus, type RequestRefusal } from './events/request-events';
export { parseTraceparent, traceIdOf, metaOf } from './dispatch/trace-context';
export { HostState, type HostPhase } from './lifecycle/host-state';
export { LifecycleMethods } from './lifecycle/lifecycle.methods';
export {
  MCP_PROTOCOL_OPTIONS,
  InjectProtocolOptions,
  PROTOCOL_OPTION_KEYS,
  MIN_REQUEST_STATE_SECRET_BYTES,
  resolveProtocolOptions,
  type ProtocolOptions,
} from './options/protocol.options';
export { ClientRequests } from './sessions/client-requests';
export { McpSession, type NotificationSink } from './sessions/mcp-session';
export {
  ResumableStream,
  streamIdOf,
  KEEP_AFTER_FINISH_MS,
  MAX_EVENTS,
  type EventSink,
  type StreamMirror,
} from './sessions/resumable-stream';
export { recordOf, applyRecord, type SessionRecord } from './sessions/session-record';
export { SessionStore, type SessionRefusal } from './sessions/session.store';
export { MCP_SESSION_RELAY, InjectSessionRelay, type SessionRelay } from './sessions/session-relay';
export { LocalSessionRelay } from './sessions/local-session.relay';
export {
  MCP_SHARED_STREAMS,
  InjectSharedStreams,
  type SharedStreams,
  type RemoteResume,
} from './sessions/shared-streams';
export { LocalStreams } from './sessions/local-streams';
export { TaskMethods } from './tasks/task.methods';
export { TaskExtensionMethods } from './tasks/task-extension.methods';
export { TaskRunner, publicTask } from './tasks/task.runner';
export { TaskExtensionRunner } from './tasks/task-extension.runner';
export { TaskInputs, type TaskInputRequest, type TaskInputRequests } from './tasks/task-inputs';
export { TaskStatusEvents, taskStatusNotification, type TaskStatusListener } from './tasks/task-status.events';
export type { TaskStatusChange } from './tasks/task-status-change';
export { createTaskResult, detailedTask } from './tasks/task-wire';
export {
  MCP_PROTOCOL_EXTENSIONS,
  declares,
  type ExtensionClient,
  type ProtocolExtension,
} from './eras/protocol-extension';
export { TASKS_EXTENSION, declaresTasks, missingTasksExtension } from './tasks/tasks-extension';
export { MCP_TASK_REPLICAS, InjectTaskReplicas, type TaskReplicas } from './tasks/task-replicas';
export { LocalTaskReplicas } from './tasks/local-task-replicas';
export {
  ownsTask,
  MCP_TASK_STORE,
  InjectTaskStore,
  InMemoryTaskStore,
  type McpTaskOwner,
  type StoredTask,
  type McpTaskStore,
} from './tasks/task.store';
export { ChangeNotifications } from './subscriptions/change-notifications';
export { ListenSubscription, type SubscriptionEnd } from './subscriptions/listen-subscription';
export {
  ListenSubscriptions,
  type McpSubscriber,
  type McpSubscriptionTopic,
} from './subscriptions/listen-subscriptions';
export { SubscriptionMethods } from './subscriptions/subscription.methods';
export { readSubscriptionFilter, type SubscriptionFilter } from './subscriptions/subscription-filter';
export { PROTOCOL_PROVIDERS, ENGINE_METHOD_GROUPS } from './protocol.providers';
export {
  META_KEYS,
  envelopeVersionOf,
  isStatelessRequest,
  readEnvelope,
  unsupportedVersion,
  missingClientCapability,
  type RequestEnvelope,
} from './eras/request-envelope';
export { statelessResult, withCacheHints } from './eras/stateless-result';
export { InputRounds } from './inputs/input-rounds';
export { InputRound, type InputRequiredResult } from './inputs/input-round';
export { RequestStateSealer } from './inputs/request-state.sealer';
export { MCP_ANSWER_CLAIMS, InjectAnswerClaims, type AnswerClaims } from './inputs/answer-claims';
export { InMemoryAnswerClaims } from './inputs/in-memory-answer-claims';
