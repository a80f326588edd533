// The public API of the `nest-mcp-host` package: every name here is for applications, so each is
// listed by name. Names the libraries export only for each other stay in their own barrels.
// Nothing reachable from here loads `pg` or `ioredis`: those backends are the subpath entries
// `nest-mcp-host/postgres` and `nest-mcp-host/redis`; nor the cluster library, which the host
// loads only with the `cluster` option.

// Module and options
export { McpModule, McpEndpoints } from '#libs/hosting';

// In-process calls: the same admission pipeline as MCP, from code (and the command line)
export { McpInvoker, McpInvocationError } from '#libs/hosting';
export type { McpInvokeOptions, McpInvokeProgress, McpInvocation, McpInvokableMethod } from '#libs/hosting';
export type {
  McpModuleOptions,
  McpApprovalOptions,
  McpRequestStateOptions,
  McpModuleExtras,
  McpEndpointRef,
} from '#libs/hosting';

// Replicas behind a load balancer: the state they share (RedisClusterBackplane is in nest-mcp-host/redis).
// Types only: an application without the `cluster` option loads no file of the cluster library.
export type { McpCluster, McpClusterBackplane, McpClusterMessage, McpClusterEntry } from '#libs/cluster';
export type { McpClusterOptions } from '#libs/hosting';

// Decorators: tools, prompts, resources, their parameters, authorization, DTO fields
export {
  McpTool,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpCompletion,
  McpArgs,
  McpContext,
  McpCaller,
  Sensitive,
  McpHeader,
  McpExpose,
} from '#libs/core';
export { RequireScopes, Roles } from '#libs/security';
// What @RequireScopes and @Roles record, for an application's own guards on its HTTP routes.
export { MCP_REQUIRED_SCOPES_METADATA, MCP_ROLES_METADATA } from '#libs/core';
export type {
  McpToolOptions,
  McpToolAnnotations,
  McpIcon,
  McpUnknownArguments,
  McpToolCliOptions,
  McpToolUi,
  McpToolVisibility,
  McpPromptOptions,
  McpPromptArgument,
  McpCompleter,
  McpCompletionOptions,
  McpResourceOptions,
  McpResourceTemplateOptions,
  McpResourceAnnotations,
  McpCacheOptions,
  McpCacheScope,
  McpExposeOptions,
  SchemaSource,
  JsonSchemaObject,
  ZodLikeSchema,
} from '#libs/core';

// The call: context, caller, results and errors
export type {
  McpCallContext,
  McpCallLogger,
  McpPrincipal,
  McpServerSelection,
  McpSelectableEntry,
  McpLogLevel,
  McpTransportKind,
  McpCallKind,
  McpClientRequestOptions,
  McpRetryable,
  McpDiagnostic,
} from '#libs/core';
export { text, image, audio, embeddedResource, resourceLink, MCP_TRANSPORT_KINDS } from '#libs/core';
export { userMessage, assistantMessage } from '#libs/prompts';
export {
  McpToolError,
  McpClientRequestError,
  JsonRpcError,
  JsonRpcErrorCode,
  McpStartupError,
  MissingDependencyError,
  ANONYMOUS_PRINCIPAL,
} from '#libs/core';
export { resourceNotFound } from '#libs/resources';
export { McpExecutionContext } from '#libs/invocation';
export {
  MCP_CONTEXT_TYPE,
  MCP_TOOL_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
} from '#libs/core';

// MCP Apps: views of tools (ui:// resources rendered by the client), and the extension's names
export { McpView, MCP_APPS_EXTENSION, MCP_APP_MIME_TYPE } from '#libs/apps';
export type { McpViewOptions, McpViewCsp, McpViewPermission, McpViewScript } from '#libs/apps';

// The catalog at run time, resource notifications, schemas
export { McpCatalog, JsonSchemaFactory } from '#libs/catalog';
export type { McpCatalogKind, McpDynamicHandler, McpEntryAccess } from '#libs/catalog';

// The REST bridge: controller routes as MCP tools
export type {
  McpRestOptions,
  McpRestRouteRules,
  McpRestConfirmOptions,
  McpRestConfirmPolicy,
  McpRestApiOptions,
  RestRemoteCredentials,
} from '#libs/rest';
export { MCP_REST_REQUEST, isMcpRestRequest } from '#libs/core';

// The gateway: upstream MCP servers in the catalog
export { McpGateway, UPSTREAM_META_KEY } from '#libs/gateway';
export type {
  McpGatewayOptions,
  McpUpstreamOptions,
  McpHttpUpstreamTransport,
  McpStdioUpstreamTransport,
  McpUpstreamFilter,
  McpUpstreamOAuth,
  McpUpstreamLimits,
  UpstreamConfirmation,
  UpstreamStatus,
  UpstreamState,
  CircuitState,
} from '#libs/gateway';

// Tool search: search_tools and call_tool over a catalog too large to list, and their rankers
export { Bm25ToolRanker, EmbeddingToolRanker } from '#libs/tool-search';
export type {
  McpToolSearchOptions,
  McpToolRanker,
  McpTextEmbedder,
  SearchableTool,
  ToolSearchHit,
} from '#libs/tool-search';
export { McpResourceNotifier } from '#libs/resources';

// Corporate identity: the IdP's claims to the host's scopes and roles, and the authorization server
// facade in front of the company IdP (sign-in for every client, enterprise-managed authorization)
export type { McpClaimsMapping, McpClaimRule } from '#libs/security';
export {
  McpAuthorizationServer,
  InMemoryAuthorizationServerStore,
  MCP_AUTHORIZATION_SERVER_STORE,
  ENTERPRISE_MANAGED_AUTHORIZATION,
} from '#libs/authorization-server';
export type {
  McpAuthorizationServerOptions,
  McpCompanyIdp,
  McpConsentOptions,
  McpPreRegisteredClient,
  McpTrustedIdp,
  AuthorizationServerStore,
  McpOAuthGrant,
  McpOAuthConsent,
  McpOAuthClientApproval,
} from '#libs/authorization-server';

// The caller's identity downstream (each upstream's and API's `credential`, the `downstream` option)
export {
  DownstreamIdentity,
  UserConnections,
  InMemoryUserConnectionStore,
  MCP_USER_CONNECTION_STORE,
  InjectUserConnectionStore,
} from '#libs/downstream-identity';
export type {
  McpDownstreamOptions,
  McpDownstreamCredential,
  McpTokenExchangeCredential,
  McpUserCredential,
  McpConnectAuthorization,
  McpUserConnection,
  UserConnectionStore,
} from '#libs/downstream-identity';
export type { McpDownstreamUse, McpDownstreamCredentialMode } from '#libs/core';

// Governance: declarative policies on arguments and results, guardrails, the Jest helper
export {
  McpPolicy,
  McpGovernance,
  // The same policies and guardrails on the app's own HTTP routes
  McpGovernanceGuard,
  McpGovernanceInterceptor,
  McpPolicyTester,
  BUILTIN_DETECTORS,
  MCP_POLICY_STORE,
  InProcessPolicyStore,
  // Pinned catalogs: the pins' stores and the review of quarantined definitions
  CatalogPins,
  InMemoryCatalogPinStore,
  FileCatalogPinStore,
  instructionFlagsOf,
} from '#libs/governance';
export type {
  McpGovernanceOptions,
  McpPolicyDefinition,
  McpPolicyScope,
  McpPolicyStage,
  McpPolicyOrigin,
  McpDetector,
  McpGuardrailRule,
  McpGuardrailAction,
  McpGuardrailOptions,
  GovernancePolicyStore,
  PolicyReplacement,
  PolicyTestCall,
  PolicyTestDecision,
  McpPinOption,
  McpNewEntries,
  McpPinningOptions,
  CatalogPinStore,
  CatalogPin,
  PinnedDefinition,
  PinnedVersion,
  PinChange,
  PinReview,
  InstructionFlag,
} from '#libs/governance';

// Security: API keys, access policy, throttling, redaction
export { hashApiKey, ScopeAndRolePolicy, MCP_ACCESS_POLICY, InjectAccessPolicy } from '#libs/security';
// The host's authentication, for an application's own HTTP routes (same keys or tokens, same lock-out,
// the same client address through the trusted proxies).
export { Authenticator, AuthFailureLimiter, ClientAddresses } from '#libs/security';
export type { AuthResult, AuthRefusal, McpTrustProxy, AddressedRequest } from '#libs/security';
export type {
  McpAuthOptions,
  McpApiKey,
  McpApiKeyAuth,
  McpOAuthAuth,
  McpNoAuth,
  McpAccessPolicy,
  McpCallRequest,
  AccessRequirements,
} from '#libs/security';
export { McpThrottlerGuard, McpThrottledException, FixedWindowThrottlerStorage } from '#libs/security';
export { RedactingConsoleLogger } from '#libs/security';
export { StderrConsoleLogger } from '#libs/hosting';

// Audit trail (the PostgreSQL sink is `nest-mcp-host/postgres`)
export {
  JsonlAuditSink,
  readTrail,
  verifyChain,
  MCP_AUDIT_SINK,
  InjectAuditSink,
  AUDIT_OUTCOMES,
  SyslogAuditSink,
  WebhookAuditSink,
  OtlpLogsAuditSink,
  signAuditWebhook,
  AUDIT_WEBHOOK_SIGNATURE_HEADER,
  AuditSinkOptionsError,
} from '#libs/security';
export type {
  SyslogAuditSinkOptions,
  WebhookAuditSinkOptions,
  OtlpLogsAuditSinkOptions,
  AuditForwardHealth,
  ChainVerificationOptions,
  McpAuditOptions,
  AuditFailurePolicy,
  AuditSink,
  AuditChainTail,
  AuditRecord,
  AuditEntry,
  AuditOutcome,
  ChainVerification,
  JsonlAuditSinkOptions,
  JsonlLocation,
} from '#libs/security';

// Virtual servers managed at run time (the PostgreSQL store is `nest-mcp-host/postgres`)
export { McpVirtualServers, FileVirtualServersStore, VersionConflictError } from '#libs/virtual-servers';
export type {
  McpVirtualServersOptions,
  VirtualServersDocument,
  VirtualServersStore,
  VirtualServersChange,
  ComposedServer,
  ComposedServerCredentials,
  ComposedServerSelection,
} from '#libs/virtual-servers';

// Approvals, tasks, health, metrics, statistics
export { McpApprovals, WEBHOOK_SIGNATURE_HEADER } from '#libs/operations';
export { ApprovalDecisionError } from '#libs/invocation';
export type { McpApproval, McpApprovalEvent, McpApprovalStatus, McpApprovalChannel } from '#libs/invocation';
export { MCP_TASK_STORE, InjectTaskStore, InMemoryTaskStore, ownsTask } from '#libs/protocol';
export type { McpTaskStore, McpTaskOwner, StoredTask } from '#libs/protocol';
export { TASKS_EXTENSION, TaskStatusEvents, taskStatusNotification } from '#libs/protocol';
export type { TaskStatusChange, TaskStatusListener } from '#libs/protocol';
export { DependencyHealth, McpMetrics, McpCallStats } from '#libs/operations';
export type {
  McpHealthCheck,
  DependencyStatus,
  McpMetricsOptions,
  McpCallStatsOptions,
  McpEntryStats,
  McpLatencySummary,
  McpStatsSnapshot,
  McpWindowStats,
} from '#libs/operations';
export { McpRequestObservers, MCP_TRACER_NAME } from '#libs/protocol';
export type { McpRequestEvent, McpRequestObserver, McpEntryKind } from '#libs/protocol';
