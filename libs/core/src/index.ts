export { McpTool } from './decorators/mcp-tool.decorator';
export { McpArgs, McpContext, McpCaller } from './decorators/mcp-param.decorators';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export { McpCompletion, type McpCompletionOptions } from './decorators/mcp-completion.decorator';
export { McpResource, McpResourceTemplate } from './decorators/mcp-resource.decorator';
export { Sensitive, sensitiveDtoProperties } from './decorators/sensitive.decorator';
export { McpHeader, mcpHeaderDtoProperties } from './decorators/mcp-header.decorator';
export { McpExpose, type McpExposeOptions } from './decorators/mcp-expose.decorator';
export type { McpPromptOptions, McpPromptArgument, McpCompleter } from './interfaces/mcp-prompt-options.interface';
export type {
  McpResourceOptions,
  McpResourceTemplateOptions,
  McpResourceAnnotations,
} from './interfaces/mcp-resource-options.interface';
export type {
  McpToolOptions,
  McpToolAnnotations,
  McpIcon,
  McpUnknownArguments,
  McpToolCliOptions,
  McpToolUi,
  McpToolVisibility,
} from './interfaces/mcp-tool-options.interface';
export type { SchemaSource, JsonSchemaObject, ZodLikeSchema } from './interfaces/schema-source.interface';
export type { McpCacheOptions, McpCacheScope } from './interfaces/mcp-cache-options.interface';
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
} from './interfaces/mcp-call-context.interface';
export { MCP_LOG_LEVELS, MCP_TRANSPORT_KINDS, isMcpLogLevel } from './interfaces/mcp-call-context.interface';
export {
  recordDownstream,
  RECORD_DOWNSTREAM,
  type McpDownstreamUse,
  type McpDownstreamCredentialMode,
} from './downstream/downstream-use';
export { ANONYMOUS_PRINCIPAL } from './principal/anonymous-principal';
export { McpParamType } from './interfaces/mcp-param-type.enum';
export { McpToolError } from './errors/mcp-tool.error';
export { McpClientRequestError } from './errors/mcp-client-request.error';
export { JsonRpcError, JsonRpcErrorCode } from './errors/json-rpc.error';
export { RETRY_AFTER_META, retryAfterOf, type McpRetryable } from './errors/retry-after';
export { McpStartupError, type McpDiagnostic } from './errors/mcp-startup.error';
export { MissingDependencyError } from './errors/missing-dependency.error';
export { optionalDependency } from './optional/optional-dependency';
export { text, image, audio, embeddedResource, resourceLink } from './content/content.helpers';
export {
  MCP_TOOL_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_COMPLETION_METADATA,
  MCP_REQUIRED_SCOPES_METADATA,
  MCP_ROLES_METADATA,
  MCP_EXPOSE_METADATA,
  MCP_PARAM_ARGS_METADATA,
  MCP_CONTEXT_TYPE,
  MCP_RELAY_METADATA,
} from './mcp.constants';
export {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSION,
  ALL_PROTOCOL_VERSIONS,
  DEFAULT_HTTP_PROTOCOL_VERSION,
  isStatelessVersion,
} from './protocol/protocol-versions';
export { optionChecks, URL_PATH, type OptionReport } from './options/option-checks';
export { readCacheOption, type McpCacheHints } from './options/cache-option';
export { httpPlatformOf } from './platform/http-platform-of';
export {
  type HttpPlatform,
  type HttpAdapter,
  type NodeRequest,
  type NodeRouteHandler,
  type RouteMethod,
  type RouteBody,
} from './platform/http-platform';
export { InMemoryExpiringStore } from './stores/in-memory-expiring.store';
export { PostgresTable, SQL_IDENTIFIER, type PostgresTableOptions } from './stores/postgres-table';
export { PostgresExpiringStore } from './stores/postgres-expiring.store';
