import { Module } from '@nestjs/common';
import { ToolInvoker } from './tool.invoker';
import { ValidatorFactory } from './validation/validator.factory';

/** Runs tool calls through validation and Nest's pipeline. */
@Module({
  providers: [ToolInvoker, ValidatorFactory],
  exports: [ToolInvoker],
})
export class InvocationModule {}
