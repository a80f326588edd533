import { Module } from '@nestjs/common';
import { ConfirmationGate } from './confirmation/confirmation.gate';
import { ApprovalRequests } from './confirmation/approval-requests';
import { HandlerRunner } from './handler-runner';
import { InvocationSettings } from './invocation.settings';
import { ToolInvoker } from './tool.invoker';
import { ValidatorFactory } from './validation/validator.factory';

/** Runs tool calls (and the handlers of prompts and resources) through validation and Nest's pipeline. */
@Module({
  providers: [HandlerRunner, ToolInvoker, ValidatorFactory, ConfirmationGate, ApprovalRequests, InvocationSettings],
  exports: [HandlerRunner, ToolInvoker, ValidatorFactory, InvocationSettings, ApprovalRequests],
})
export class InvocationModule {}
