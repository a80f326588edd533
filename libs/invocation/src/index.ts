export { InvocationModule } from './invocation.module';
export { ToolInvoker } from './tool.invoker';
export { McpExecutionContext } from './mcp-execution-context';
export { CallContext, ANONYMOUS_CALLER, type CallContextInit } from './context/call-context';
export type { CallChannel } from './context/call-channel.interface';
export { CallCancellation } from './context/call-cancellation';
export { toCallToolResult, toolErrorResult } from './results/tool-result.mapper';
