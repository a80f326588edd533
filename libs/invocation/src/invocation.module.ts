import { Module } from '@nestjs/common';
import { ConfirmationGate } from './confirmation/confirmation.gate';
import { ConfirmationTokens } from './confirmation/confirmation-tokens';
import { HandlerRunner } from './handler-runner';
import { InvocationSettings } from './invocation.settings';
import { ToolInvoker } from './tool.invoker';
import { ValidatorFactory } from './validation/validator.factory';

/** Runs tool calls (and the handlers of prompts and resources) through validation and Nest's pipeline. */
@Module({
  providers: [HandlerRunner, ToolInvoker, ValidatorFactory, ConfirmationGate, ConfirmationTokens, InvocationSettings],
  exports: [HandlerRunner, ToolInvoker, ValidatorFactory, InvocationSettings],
})
export class InvocationModule {}
