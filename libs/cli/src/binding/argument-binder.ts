import { CliUsageError, type CliUsageProblem } from '../errors/cli-usage.error';
import type { CliOption, CliOptionTable } from './cli-options';
import { didYouMean } from './did-you-mean';
import { expectedOf, readItems, readWord, type WordProblem } from './value-parser';

/** Reads all of standard input as text (the CLI passes its own; tests pass a string). */
export type StdinReader = () => Promise<string>;

/** The option that takes the whole argument object. */
const JSON_OPTION = '--json';
/** A word that is a negative number is a value, not an option. */
const NEGATIVE_NUMBER = /^-(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Received words longer than this are cut in messages. */
const SHOWN = 60;

function isOptionWord(word: string): boolean {
  return word.startsWith('-') && word !== '-' && !NEGATIVE_NUMBER.test(word);
}

function quoted(word: string): string {
  return JSON.stringify(word.length > SHOWN ? `${word.slice(0, SHOWN)}…` : word);
}

function problem(option: string, expected: string, received?: string, hint?: string): CliUsageProblem {
  const got = received === undefined ? '' : `; got ${quoted(received)}`;
  return {
    option,
    expected,
    ...(received !== undefined && { received }),
    message: `${option}: expected ${expected}${got}${hint ? ` (${hint})` : ''}`,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The state of one binding: values given so far, and the problems met. */
class Binding {
  readonly problems: CliUsageProblem[] = [];
  /** Each property's value, and the option or argument that gave it. */
  readonly values = new Map<CliOption, { value: unknown; by: string }>();
  /** The properties given at all, well or not (a refused value is not also reported missing). */
  readonly given = new Set<CliOption>();
  /** Words that are not options, in order. */
  readonly words: string[] = [];
  json?: { by: string; text: string };

  constructor(readonly table: CliOptionTable) {}

  /** Reads `word` as the value of `option` (typed as `by`) and keeps it, or the problem. */
  give(option: CliOption, by: string, word: string): void {
    this.given.add(option);
    if (option.type.kind === 'array') {
      const items = readItems(word, option.type.items);
      if (!Array.isArray(items)) return this.refuse(by, items, word);
      const before = this.values.get(option);
      const value = Array.isArray(before?.value) ? [...before.value, ...items] : items;
      this.values.set(option, { value, by: before?.by ?? by });
      return;
    }
    const parsed = readWord(word, option.type);
    if ('value' in parsed) this.set(option, by, parsed.value);
    else this.refuse(by, parsed, word);
  }

  set(option: CliOption, by: string, value: unknown): void {
    this.given.add(option);
    const before = this.values.get(option);
    if (before) {
      const also = before.by === by ? '' : `, also given as ${before.by}`;
      this.problems.push(problem(by, `one value${also}`, undefined, 'given more than once'));
    } else this.values.set(option, { value, by });
  }

  refuse(by: string, why: WordProblem, word: string): void {
    this.problems.push(problem(by, why.expected, why.received ?? word, why.hint));
  }
}

/**
 * Binds a command line to a tool's argument object, from the tool's option table
 * (`cliOptionsOf`). `argv` is what follows the tool name, the CLI's own options already taken out.
 *
 * - `--name value` and `--name=value`; long options ignore case; short aliases `-s value`, `-s=value`.
 *   A value that begins with `-` (other than a negative number) is given with `=`.
 * - Booleans: `--flag` (true), `--no-flag` (false), `--flag=true|false`; `--flag true|false` too.
 * - Arrays: repeated options or comma lists (`--tag a --tag b`, `--tag a,b`), each item read by
 *   the `items` type; a JSON array as written (`--tag '["a,b"]'`); `--tag=` gives an empty list.
 * - Enums: the allowed values (one differing in case alone is taken for it); numbers and integers
 *   strictly; `null` where the schema allows it; objects and compositions as JSON values.
 * - Positional arguments fill the `cli.positional` properties in order, skipping those given as
 *   options; an array positional takes the rest. `--` ends the options: every word after it is positional.
 * - `--json '{…}'`, or `--json -` to read the object from stdin: the whole argument object, to
 *   which the options given as well are applied on top — an option wins over the same property
 *   in the JSON (arrays included: replaced, not appended).
 *
 * The binder converts words; the tool's input schema (lengths, patterns, ranges) is still
 * checked by the same validation as an MCP call. Defaults are not filled in for the same reason.
 *
 * @param readStdin called once, and only for `--json -`.
 * @returns the argument object for the call.
 * @throws CliUsageError with every problem: unknown options (with a suggestion), values of the
 *   wrong type, missing required properties (named by their option), extra positional arguments,
 *   a value given twice, a malformed `--json`.
 *
 * @example
 * ```ts
 * const table = cliOptionsOf(schema, { positional: ['ticketId'] });
 * await bindArguments(table, ['T-2001', '--resolution', 'Refunded'], readStdin);
 * // { ticketId: 'T-2001', resolution: 'Refunded' }
 * ```
 */
export async function bindArguments(
  table: CliOptionTable,
  argv: readonly string[],
  readStdin: StdinReader,
): Promise<Record<string, unknown>> {
  const binding = new Binding(table);
  scan(binding, argv);
  placePositionals(binding);
  const fromJson = binding.json ? await readJsonArguments(binding, binding.json, readStdin) : {};

  const args: Record<string, unknown> = { ...fromJson };
  // Defined, not assigned, and looked up as own properties: a property named like a member of
  // Object.prototype (`__proto__`, `toString`) is an argument like any other.
  for (const [option, { value }] of binding.values)
    Object.defineProperty(args, option.property, { value, enumerable: true, writable: true, configurable: true });
  for (const option of table.options) {
    if (option.required && !Object.hasOwn(args, option.property) && !binding.given.has(option))
      binding.problems.push({
        option: option.label,
        expected: expectedOf(option.type),
        message: `${option.label}: required; expected ${expectedOf(option.type)}`,
      });
  }
  if (binding.problems.length > 0) throw new CliUsageError(binding.problems);
  return args;
}

/** Reads the words: options with their values, and the other words for positionals. */
function scan(binding: Binding, argv: readonly string[]): void {
  let index = 0;
  // The word after an option, when it is a value rather than another option.
  const valueAfter = (): string | undefined => {
    const next = argv[index + 1];
    if (next === undefined || isOptionWord(next)) return undefined;
    index++;
    return next;
  };

  for (; index < argv.length; index++) {
    const word = argv[index];
    if (word === '--') {
      binding.words.push(...argv.slice(index + 1));
      return;
    }
    if (!isOptionWord(word)) {
      binding.words.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const typed = equals > 0 ? word.slice(0, equals) : word;
    const inline = equals > 0 ? word.slice(equals + 1) : undefined;

    if (typed.toLowerCase() === JSON_OPTION) {
      const text = inline ?? valueAfter();
      if (text === undefined) binding.problems.push(problem(typed, 'a JSON object, or - to read one from stdin'));
      else if (binding.json) binding.problems.push(problem(typed, 'one value', undefined, 'given more than once'));
      else binding.json = { by: typed, text };
      continue;
    }

    const match = binding.table.find(typed);
    if (!match) {
      // `--no-status` for a property that is not a boolean: the option itself is what exists.
      const positive = /^--no-/i.test(typed) ? binding.table.find(`--${typed.slice(5)}`) : undefined;
      const near = positive ? `--${typed.slice(5)}` : didYouMean(typed, [...binding.table.spellings(), JSON_OPTION]);
      binding.problems.push({
        option: typed,
        expected: 'an option of this tool',
        message: `${typed}: unknown option${near ? `; did you mean ${near}?` : ''}`,
      });
      // Its value, if it has one, is not a positional argument.
      if (inline === undefined) valueAfter();
      continue;
    }

    const { option, negated } = match;
    if (negated) {
      if (inline === undefined) binding.set(option, typed, false);
      else {
        binding.given.add(option);
        binding.problems.push(problem(typed, 'no value', inline));
      }
      continue;
    }
    if (option.negatable && inline === undefined) {
      // `--flag` alone is true; a following true/false is its value (anything else is not).
      const next = argv[index + 1];
      const spelled = next !== undefined && /^(true|false)$/i.test(next);
      if (spelled) index++;
      binding.set(option, typed, spelled ? next.toLowerCase() === 'true' : true);
      continue;
    }
    const text = inline ?? valueAfter();
    if (text !== undefined) binding.give(option, typed, text);
    else {
      binding.given.add(option);
      binding.problems.push(problem(typed, expectedOf(option.type), undefined, 'no value given'));
    }
  }
}

/** Gives the words to the positional properties not given as options, in order. */
function placePositionals(binding: Binding): void {
  const open = binding.table.positional.filter((option) => !binding.values.has(option));
  const words = [...binding.words];
  for (const option of open) {
    if (words.length === 0) break;
    if (option.type.kind === 'array') {
      for (const word of words.splice(0)) binding.give(option, option.label, word);
    } else binding.give(option, option.label, words.shift()!);
  }
  const takes = binding.table.positional.map((option) => option.label).join(' ');
  for (const word of words)
    binding.problems.push({
      option: word,
      expected: takes ? `no more arguments than ${takes}` : 'no positional arguments',
      received: word,
      message: `${quoted(word)}: unexpected argument; ${takes ? `the arguments are ${takes}` : 'options are written --name value'}`,
    });
}

/** The object of `--json`, from its value or from stdin. */
async function readJsonArguments(
  binding: Binding,
  json: { by: string; text: string },
  readStdin: StdinReader,
): Promise<Record<string, unknown>> {
  const fromStdin = json.text === '-';
  const text = fromStdin ? await readStdin() : json.text;
  const expected = fromStdin ? 'a JSON object on stdin' : 'a JSON object';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (isPlainObject(value)) return value;
  binding.problems.push(problem(json.by, expected, text.trim()));
  return {};
}
