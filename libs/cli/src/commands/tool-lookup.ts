import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RegisteredTool } from '#libs/catalog';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { didYouMean } from '../binding/did-you-mean';

/**
 * The tool a command names, as this caller may use it: its entry (input schema, `cli` options)
 * and its listed definition.
 * @throws CliFailure `notFound` for a name the application has no tool of (with the nearest
 *   names), `refused` for one this caller may not use
 */
export async function toolFor(context: CliContext, name: string): Promise<{ entry: RegisteredTool; definition: Tool }> {
  const listed = await context.invoker.listTools(context.invoke);
  const definition = listed.find((tool) => tool.name === name);
  const entry = context.tools.get(name);
  if (!entry) {
    const hint = didYouMean(
      name,
      listed.map((tool) => tool.name),
    );
    throw new CliFailure(
      `Unknown tool "${name}".${hint ? ` Did you mean ${hint}?` : ''} Run "${context.program} list" to see the tools.`,
      CliExitCode.notFound,
    );
  }
  if (!definition) throw refusedTool(context, name);
  return { entry, definition };
}

/** The refusal of a tool the caller may not use (hidden from its list, refused when called). */
export function refusedTool(context: CliContext, name: string): CliFailure {
  const who = context.global.apiKey === undefined ? 'the configured operator' : 'the API key given';
  return new CliFailure(`Refused: the tool "${name}" is not available to ${who}.`, CliExitCode.refused);
}
