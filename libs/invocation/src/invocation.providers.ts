import { ApprovalRequests } from './confirmation/approval-requests';
import { ApprovalPageLocator } from './confirmation/approval-page.locator';
import { ConfirmationGate } from './confirmation/confirmation.gate';
import { HandlerRunner } from './handler-runner';
import { ToolInvoker } from './tool.invoker';
import { ValidatorFactory } from './validation/validator.factory';

/** Runs tool calls (and the handlers of prompts and resources) through validation and Nest's pipeline; needs `MCP_INVOCATION_OPTIONS`. */
export const INVOCATION_PROVIDERS = [
  HandlerRunner,
  ToolInvoker,
  ValidatorFactory,
  ConfirmationGate,
  ApprovalRequests,
  ApprovalPageLocator,
];
