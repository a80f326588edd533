export { INVOCATION_PROVIDERS } from './invocation.providers';
export { ToolInvoker } from './tool.invoker';
export { InvalidArguments, type CheckedArguments } from './validation/checked-arguments';
export {
  MCP_INVOCATION_OPTIONS,
  InjectInvocationOptions,
  INVOCATION_OPTION_KEYS,
  INVOCATION_APPROVAL_KEYS,
  resolveInvocationOptions,
  type InvocationOptions,
  type ApprovalSettings,
} from './options/invocation.options';
export { HandlerRunner, type HandlerFailure } from './handler-runner';
export { ValidatorFactory } from './validation/validator.factory';
export { compileJsonSchema, jsonSchemaChecker } from './validation/json-schema.validator';
export type { CompiledValidator, ValidationResult } from './validation/validation-result';
export { McpExecutionContext } from './mcp-execution-context';
export { CallContext, type CallContextInit } from './context/call-context';
export type { CallFailure, Invocation } from './results/invocation';
export { markCallFailure } from './results/call-failure-mark';
export { HandlerFailedError } from './results/handler-failed.error';
export type { CallChannel } from './context/call-channel.interface';
export { CallCancellation } from './context/call-cancellation';
export { CallCancelledError } from './context/call-cancelled.error';
export { toCallToolResult, toolErrorResult } from './results/tool-result.mapper';
export { ConfirmationGate, APPROVAL_META } from './confirmation/confirmation.gate';
export { ApprovalPageLocator } from './confirmation/approval-page.locator';
export { needsConfirmation } from './confirmation/confirmation-policy';
export {
  ApprovalRequests,
  ApprovalDecisionError,
  digestOfArguments,
  type McpApprovalEvent,
} from './confirmation/approval-requests';
export type { McpApproval, McpApprovalStatus, McpApprovalChannel, ApprovalBinding } from './confirmation/mcp-approval';
export {
  MCP_APPROVAL_LEDGER,
  InjectApprovalLedger,
  KEEP_DECIDED_MS,
  expiryOf,
  type ApprovalLedger,
  type ApprovalDecision,
} from './confirmation/approval-ledger';
export { InMemoryApprovalLedger } from './confirmation/in-memory-approval.ledger';
