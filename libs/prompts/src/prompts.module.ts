import { Module } from '@nestjs/common';
import { InvocationModule } from '#libs/invocation';
import { PromptGetter } from './prompt.getter';

/** Serves prompts found by the catalog. */
@Module({
  imports: [InvocationModule],
  providers: [PromptGetter],
  exports: [PromptGetter],
})
export class PromptsModule {}
