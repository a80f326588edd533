/** Metadata key under which `@McpTool` stores its options on a method. */
export const MCP_TOOL_METADATA = 'mcp:tool';
/** Metadata key for the parameters bound by `@McpArgs` / `@McpContext` (Nest's route-args format). */
export const MCP_PARAM_ARGS_METADATA = 'mcp:param-args';
/** The execution-context type guards see for MCP calls: `context.getType() === 'mcp'`. */
export const MCP_CONTEXT_TYPE = 'mcp';
/** Metadata key under which `@McpPrompt` stores its options on a method. */
export const MCP_PROMPT_METADATA = 'mcp:prompt';
/** Metadata key under which `@McpResource` stores its options on a method. */
export const MCP_RESOURCE_METADATA = 'mcp:resource';
/** Metadata key under which `@McpResourceTemplate` stores its options on a method. */
export const MCP_RESOURCE_TEMPLATE_METADATA = 'mcp:resource-template';
/** Metadata key under which `@McpCompletion` stores its options on a method. */
export const MCP_COMPLETION_METADATA = 'mcp:completion';
/** Metadata key of `@RequireScopes` (method or class). */
export const MCP_REQUIRED_SCOPES_METADATA = 'mcp:required-scopes';
/** Metadata key of `@Roles` (method or class). */
export const MCP_ROLES_METADATA = 'mcp:roles';
/** Metadata key of `@McpExpose` (controller class or route method). */
export const MCP_EXPOSE_METADATA = 'mcp:expose';

/**
 * Marks a tool that calls another catalog entry on its caller's behalf (the tool search's
 * `call_tool`): the entry it calls is admitted, throttled, confirmed and audited as a call of its
 * own, so `McpThrottlerGuard` does not count the relay itself (its callers would share one budget
 * for every tool they reach through it).
 */
export const MCP_RELAY_METADATA = 'mcp:relay';
