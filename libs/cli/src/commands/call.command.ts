import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpInvocationError } from '#libs/hosting';
import type { AuditOutcome } from '#libs/security';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode, failureExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { readAll } from '../command-line/cli-io';
import { bindArguments } from '../binding/argument-binder';
import { cliOptionsOf } from '../binding/cli-options';
import { describeTool } from '../help/help-text';
import { ProgressReporter } from '../output/progress-reporter';
import { ResultPrinter } from '../output/result-printer';
import { refusedTool, toolFor } from './tool-lookup';

/**
 * `call <tool> [args]`: binds the arguments from the command line (options, positional
 * arguments, `--json`), calls the tool through the admission pipeline, prints its result, and
 * exits with what became of it.
 */
export async function callCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const [name, ...rest] = words;
  if (!name)
    throw new CliFailure(`call: name the tool, e.g. "${context.program} call <tool> --help"`, CliExitCode.usage);
  const { entry, definition } = await toolFor(context, name);
  const table = cliOptionsOf(definition.inputSchema, entry.options.cli);
  if (context.global.help) {
    context.io.stdout.write(
      describeTool(definition, table, { command: `${context.program} call`, width: context.io.stdout.columns }),
    );
    return CliExitCode.ok;
  }
  const args = await bindArguments(table, rest, () => readAll(context.io.stdin));
  const progress = new ProgressReporter(context.io.stderr);
  let answer: { result: CallToolResult; outcome: AuditOutcome };
  try {
    answer = await context.invoker.send<CallToolResult>(
      'tools/call',
      { name, arguments: args },
      {
        ...context.invoke,
        onProgress: (update) => progress.report(update),
        // A log message on a line of its own, not glued to the bar.
        onLog: (...message) => progress.above(() => context.invoke.onLog?.(...message)),
      },
    );
  } catch (error) {
    // Hidden from this caller (answered as an unknown tool), or refused for these arguments (a
    // policy's rule, a governance policy or guardrail): the latter says why.
    if (error instanceof McpInvocationError && error.outcome === 'denied')
      throw error.message.startsWith('Unknown tool')
        ? refusedTool(context, name)
        : new CliFailure(`Refused: ${error.message}`, CliExitCode.refused);
    throw error;
  } finally {
    progress.done();
  }
  await new ResultPrinter(context.io, context.global.output, context.global.outDir, name).toolResult(answer.result);
  return answer.result.isError ? failureExitCode(answer.outcome) : CliExitCode.ok;
}
