import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../command-line/cli-io';

type ElicitParams = ElicitRequest['params'];
interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
}

const YES = /^(y|yes)$/i;

/**
 * Answers a call's requests for user input on the command line (the confirmation of a
 * destructive tool among them): with `--yes`, confirmed without asking; on a terminal, asked;
 * otherwise declined, with how to confirm non-interactively.
 */
export function terminalElicitation(io: CliIo, yes: boolean): (params: ElicitParams) => Promise<ElicitResult> {
  return async (params) => {
    if (params.mode === 'url') {
      io.stderr.write(`${params.message}\nOpen ${params.url} to answer; the call was not confirmed here.\n`);
      return { action: 'decline' };
    }
    const fields = Object.entries((params.requestedSchema?.properties ?? {}) as Record<string, FieldSchema>);
    const required = new Set((params.requestedSchema?.required ?? []) as string[]);
    if (yes) return confirmedWithoutAsking(io, params.message, fields, required);
    if (!io.stdin.isTTY || !io.stderr.isTTY) {
      io.stderr.write(`${params.message}\nNot confirmed: there is no terminal to ask on; pass --yes to confirm.\n`);
      return { action: 'decline' };
    }
    return askOnTerminal(io, params.message, fields);
  };
}

/** `--yes`: every yes/no question answered yes, every other field its default. */
function confirmedWithoutAsking(
  io: CliIo,
  message: string,
  fields: [string, FieldSchema][],
  required: ReadonlySet<string>,
): ElicitResult {
  const content: Record<string, string | number | boolean> = {};
  for (const [name, field] of fields) {
    if (field.type === 'boolean') content[name] = true;
    else if (field.default !== undefined) content[name] = field.default as string | number | boolean;
    else if (required.has(name)) {
      io.stderr.write(`${message}\nNot answered: --yes cannot fill "${name}"; run it on a terminal to answer.\n`);
      return { action: 'decline' };
    }
  }
  return { action: 'accept', content };
}

async function askOnTerminal(io: CliIo, message: string, fields: [string, FieldSchema][]): Promise<ElicitResult> {
  // The confirmation of a call is one yes/no question: asked as one line.
  if (fields.length === 1 && fields[0][1].type === 'boolean') {
    const answer = await io.ask(`${message} [y/N] `);
    return YES.test(answer.trim()) ? { action: 'accept', content: { [fields[0][0]]: true } } : { action: 'decline' };
  }
  io.stderr.write(`${message}\n`);
  const content: Record<string, string | number | boolean> = {};
  for (const [name, field] of fields) {
    const choices = field.enum ? ` (${field.enum.join('/')})` : field.type === 'boolean' ? ' (y/n)' : '';
    const fallback = field.default === undefined ? '' : ` [${String(field.default)}]`;
    const typed = (await io.ask(`${field.title ?? name}${choices}${fallback}: `)).trim();
    if (!typed && field.default !== undefined) content[name] = field.default as string | number | boolean;
    else if (field.type === 'boolean') content[name] = YES.test(typed);
    else if (field.type === 'number' || field.type === 'integer') content[name] = Number(typed);
    else if (typed) content[name] = typed;
  }
  return { action: 'accept', content };
}
