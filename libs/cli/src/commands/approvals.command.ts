import { JsonRpcError } from '#libs/core';
import { ApprovalDecisionError, type McpApproval } from '#libs/invocation';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';

const USAGE = (program: string) =>
  `use "${program} approvals [list] [--status pending|approved|denied|expired|used|all]", ` +
  `"${program} approvals approve <id> [--reason <text>]" or "${program} approvals deny <id> [--reason <text>]"`;

/** What each refusal of `McpApprovals` exits with. */
const EXIT_OF: Record<ApprovalDecisionError['status'], CliExitCode> = {
  403: CliExitCode.refused,
  404: CliExitCode.notFound,
  409: CliExitCode.toolError,
};

/**
 * `approvals [list]`, `approvals approve <id>`, `approvals deny <id>`: the approval requests of
 * calls that wait for a person, listed and decided by an operator at the machine — as the
 * approver their `--api-key` (or the API key variable) proves, else as the configured operator
 * (`stdioPrincipal`). The same rules as the dashboard's (`McpApprovals`): only an approver, and
 * never the principal whose call waits (unless `approvals.allowSelfApproval`). With the
 * `cluster` option the requests are those of every replica and of stdio hosts sharing the
 * backplane; without it, only this process's (where none are, a command line being a process of
 * its own).
 */
export async function approvalsCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const { sub, id, status, reason } = parse(context.program, words);
  const principal = await context.invoker.principalOf(context.invoke);
  try {
    if (sub === 'list') {
      const { approvals } = await context.approvals.list(principal, status === 'all' ? undefined : status);
      printList(context, approvals, status);
      return CliExitCode.ok;
    }
    const decided = await context.approvals.decide(principal, id!, sub === 'approve', reason);
    if (context.global.output === 'json') context.io.stdout.write(`${JSON.stringify(decided, null, 2)}\n`);
    else
      context.io.stdout.write(
        `${sub === 'approve' ? 'Approved' : 'Denied'} ${decided.id}: "${decided.tool}" of ${decided.principal}` +
          `${decided.reason ? ` (${decided.reason})` : ''}. ` +
          (sub === 'approve'
            ? 'Its retry with the same arguments runs, once.\n'
            : 'Its retry is told who denied it and why.\n'),
      );
    return CliExitCode.ok;
  } catch (error) {
    if (error instanceof ApprovalDecisionError)
      throw new CliFailure(`Refused: ${error.message}`, EXIT_OF[error.status]);
    // The shared state of the replicas cannot be reached: nothing was decided.
    if (error instanceof JsonRpcError) throw new CliFailure(error.message, CliExitCode.toolError);
    throw error;
  }
}

function parse(
  program: string,
  words: readonly string[],
): { sub: 'list' | 'approve' | 'deny'; id?: string; status?: string; reason?: string } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith('--')) {
      positional.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const name = (equals < 0 ? word : word.slice(0, equals)).toLowerCase();
    if (name !== '--status' && name !== '--reason')
      throw new CliFailure(`approvals: unknown option "${word}"; ${USAGE(program)}`, CliExitCode.usage);
    const value = equals < 0 ? words[++i] : word.slice(equals + 1);
    if (value === undefined || value === '') throw new CliFailure(`${name}: expected a value`, CliExitCode.usage);
    options[name.slice(2)] = value;
  }
  const [sub = 'list', id, extra] = positional;
  if (sub === 'list') {
    if (id !== undefined || options.reason !== undefined)
      throw new CliFailure(`approvals list: takes only --status; ${USAGE(program)}`, CliExitCode.usage);
    return { sub, status: options.status ?? 'pending' };
  }
  if (sub !== 'approve' && sub !== 'deny')
    throw new CliFailure(`approvals: "${sub}" is no subcommand; ${USAGE(program)}`, CliExitCode.usage);
  if (!id || extra !== undefined || options.status !== undefined)
    throw new CliFailure(`approvals ${sub}: give the request's id; ${USAGE(program)}`, CliExitCode.usage);
  return { sub, id, reason: options.reason };
}

/** One request a line (and its arguments on the next), waiting ones first; or the list as JSON. */
function printList(context: CliContext, approvals: McpApproval[], status: string | undefined): void {
  const { io } = context;
  if (context.global.output === 'json') {
    io.stdout.write(`${JSON.stringify(approvals, null, 2)}\n`);
    return;
  }
  if (approvals.length === 0) {
    io.stderr.write(`No approval requests${status && status !== 'all' ? ` (${status})` : ''}.\n`);
    return;
  }
  for (const approval of approvals) {
    const when =
      approval.status === 'pending'
        ? `expires ${approval.expiresAt}`
        : `${approval.decidedBy ? `by ${approval.decidedBy} ` : ''}${approval.decidedAt ?? approval.expiresAt}`;
    io.stdout.write(
      `${approval.id}  ${approval.status}  ${approval.tool}  by ${approval.principal} (${approval.transport})  ${when}\n` +
        `    ${JSON.stringify(approval.arguments)}\n`,
    );
  }
}
