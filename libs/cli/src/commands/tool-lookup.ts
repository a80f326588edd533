import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RegisteredTool } from '#libs/catalog';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { didYouMean } from '../binding/did-you-mean';

/**
 * The tool a command names, as this caller may use it: its entry (input schema, `cli` options)
 * and its listed definition. A tool the caller may not use is answered exactly as one that does
 * not exist (list ⇔ callable: nothing tells its holder that such a tool is there).
 * @throws CliFailure `notFound` for a name the caller has no tool of (with the nearest names it may use)
 */
export async function toolFor(context: CliContext, name: string): Promise<{ entry: RegisteredTool; definition: Tool }> {
  const listed = await context.invoker.listTools(context.invoke);
  const definition = listed.find((tool) => tool.name === name);
  const entry = context.tools.get(name);
  if (!entry || !definition) throw unknownTool(context, name, listed);
  return { entry, definition };
}

/** The answer to a tool the caller has none of: unknown, with the nearest of the names it may use. */
export function unknownTool(context: CliContext, name: string, listed: readonly Tool[] = []): CliFailure {
  const hint = didYouMean(
    name,
    listed.map((tool) => tool.name),
  );
  return new CliFailure(
    `Unknown tool "${name}".${hint ? ` Did you mean ${hint}?` : ''} Run "${context.program} list" to see the tools.`,
    CliExitCode.notFound,
  );
}
