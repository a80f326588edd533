import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { cliOptionsOf } from '../binding/cli-options';
import { describeTool } from '../help/help-text';
import { toolFor } from './tool-lookup';

/** `describe <tool>`: its usage, options, types, defaults, enums and required marks. */
export async function describeCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const [name, extra] = words;
  if (!name)
    throw new CliFailure(`describe: name the tool, e.g. "${context.program} describe <tool>"`, CliExitCode.usage);
  if (extra !== undefined) throw new CliFailure(`describe: takes one tool; got "${extra}" too`, CliExitCode.usage);
  const { entry, definition } = await toolFor(context, name);
  if (context.global.output === 'json') {
    context.io.stdout.write(`${JSON.stringify(definition, null, 2)}\n`);
    return CliExitCode.ok;
  }
  const table = cliOptionsOf(definition.inputSchema, entry.options.cli);
  context.io.stdout.write(
    describeTool(definition, table, { command: `${context.program} call`, width: context.io.stdout.columns }),
  );
  return CliExitCode.ok;
}
