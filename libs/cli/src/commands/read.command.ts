import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { ResultPrinter } from '../output/result-printer';

/** `read <uri>`: reads a resource (or a template's match) and prints its contents. */
export async function readCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const [uri, extra] = words;
  if (!uri)
    throw new CliFailure(
      `read: give the resource's URI, e.g. "${context.program} read kb://articles"`,
      CliExitCode.usage,
    );
  if (extra !== undefined) throw new CliFailure(`read: takes one URI; got "${extra}" too`, CliExitCode.usage);
  const result = await context.invoker.readResource(uri, context.invoke);
  await new ResultPrinter(context.io, context.global.output, context.global.outDir, 'resource').resourceResult(result);
  return CliExitCode.ok;
}
