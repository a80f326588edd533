import type { JsonSchemaObject } from '#libs/core';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { readAll } from '../command-line/cli-io';
import { bindArguments } from '../binding/argument-binder';
import { cliOptionsOf } from '../binding/cli-options';
import { didYouMean } from '../binding/did-you-mean';
import { ResultPrinter } from '../output/result-printer';

/** `prompt <name> [--argument value …]`: gets the prompt and prints its messages. */
export async function promptCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const [name, ...rest] = words;
  if (!name)
    throw new CliFailure(`prompt: name the prompt, e.g. "${context.program} prompt <name>"`, CliExitCode.usage);
  const entry = context.prompts.get(name);
  if (!entry) {
    const hint = didYouMean(
      name,
      context.prompts.all().map((prompt) => prompt.name),
    );
    throw new CliFailure(`Unknown prompt "${name}".${hint ? ` Did you mean ${hint}?` : ''}`, CliExitCode.notFound);
  }
  // Prompt arguments are strings: each one an option, as a tool's string property is.
  const schema: JsonSchemaObject = {
    type: 'object',
    properties: Object.fromEntries(
      entry.arguments.map((argument) => [
        argument.name,
        { type: 'string', ...(argument.description && { description: argument.description }) },
      ]),
    ),
    required: entry.arguments.filter((argument) => argument.required).map((argument) => argument.name),
  };
  const args = (await bindArguments(cliOptionsOf(schema), rest, () => readAll(context.io.stdin))) as Record<
    string,
    string
  >;
  const result = await context.invoker.getPrompt(name, args, context.invoke);
  await new ResultPrinter(context.io, context.global.output, context.global.outDir, name).promptResult(result);
  return CliExitCode.ok;
}
