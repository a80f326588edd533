/** One thing wrong with the words of a command line. */
export interface CliUsageProblem {
  /** The option or argument concerned, as the user typed it: `--priority`, `-s`, `<ticket-id>`, `--json`. */
  readonly option: string;
  /** What it takes: `one of low, normal, high`, `an integer`, `a JSON object`. */
  readonly expected: string;
  /** What was given, when something was (the word as typed). */
  readonly received?: string;
  /** The whole problem on one line: `--priority: expected one of low, normal, high; got "urgent"`. */
  readonly message: string;
}

/**
 * The command line does not bind to the tool's arguments: unknown options, values of the wrong
 * type, missing required arguments. Carries every problem found, not just the first; the message
 * has one line per problem.
 *
 * @example
 * ```ts
 * try {
 *   args = await bindArguments(table, argv, readStdin);
 * } catch (error) {
 *   if (error instanceof CliUsageError) console.error(error.message); // --limit: expected an integer; got "1.5"
 *   else throw error;
 * }
 * ```
 */
export class CliUsageError extends Error {
  constructor(readonly problems: readonly CliUsageProblem[]) {
    super(problems.map((problem) => problem.message).join('\n'));
    this.name = 'CliUsageError';
  }
}
