import type { CliValueType } from '#libs/catalog';
import type { CliOption, CliOptionTable } from '../binding/cli-options';
import { twoColumns, wrap } from './text-wrap';

/** What `describeTool` says about a tool besides its options (from its MCP definition). */
export interface CliToolSummary {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
}

/** Layout of help text. */
export interface HelpTextOptions {
  /** What the usage line starts with, before the tool name. @default 'call' */
  readonly command?: string;
  /** Columns to wrap at. @default 80 */
  readonly width?: number;
}

/** The left column of options is at most this wide; a longer entry puts its description below it. */
const LEFT_COLUMN = 30;
const INDENT = '  ';

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `<string>`, `<integer|null>`, `<value>` (an enum, listed in the details), `<json>`. */
function placeholder(type: CliValueType): string {
  switch (type.kind) {
    case 'scalar': {
      const names = [...(type.values ? ['value'] : []), ...type.types];
      return `<${names.join('|') || 'value'}>`;
    }
    case 'array':
      return `${placeholder(type.items)}...`;
    case 'json':
      return '<json>';
    case 'any':
      return '<value>';
  }
}

/** `string`, `integer|null`, `list of string`, `JSON`: the type of a positional argument. */
function typeName(type: CliValueType): string {
  switch (type.kind) {
    case 'scalar':
      return [...(type.values ? ['value'] : []), ...type.types].join('|') || 'value';
    case 'array':
      return `list of ${typeName(type.items)}`;
    case 'json':
      return 'JSON';
    case 'any':
      return 'any value';
  }
}

/** The enum values of a value or of its items. */
function valuesOf(type: CliValueType): readonly unknown[] | undefined {
  if (type.kind === 'array') return valuesOf(type.items);
  return type.kind === 'scalar' ? type.values : undefined;
}

/** What the help says after an option's description: `[required; one of: low, high; default: 20]`. */
function details(option: CliOption, extra: readonly string[] = []): string {
  const values = valuesOf(option.type);
  const parts = [
    ...(option.required && option.position === undefined ? ['required'] : []),
    ...extra,
    ...(values ? [`one of: ${values.map(valueText).join(', ')}`] : []),
    ...(option.type.kind === 'array'
      ? [
          option.type.items.kind === 'json'
            ? 'repeat it, a JSON value each (a JSON array gives several)'
            : 'repeat it, or separate values with commas',
        ]
      : []),
    ...(option.type.kind === 'json' ? ['a JSON value'] : []),
    ...(option.default !== undefined ? [`default: ${valueText(option.default)}`] : []),
  ];
  return parts.length > 0 ? `[${parts.join('; ')}]` : '';
}

/** `-s, --status, --st <value>`; a flag: `--dry-run, --no-dry-run`. Own spellings are not listed. */
function optionNames(option: CliOption): string {
  const long = option.long.filter((name, index) => index === 0 || name !== option.property);
  const names = [...option.short.map((letter) => `-${letter}`), ...long.map((name) => `--${name}`)];
  if (option.negatable) return [...names, ...long.slice(0, 1).map((name) => `--no-${name}`)].join(', ');
  return `${names.join(', ')} ${placeholder(option.type)}`;
}

function entry(left: string, description: string | undefined, detail: string, leftWidth: number, width: number) {
  const right = [description?.trim(), detail].filter(Boolean).join(' ');
  return twoColumns(INDENT + left, right, leftWidth, width);
}

/** Whether the command line names it at all (its names may all have gone to the CLI or other properties). */
function hasNames(option: CliOption): boolean {
  return option.long.length > 0 || option.short.length > 0;
}

/** The usage line's word for a positional argument: `<ticket-id>`, `[<ticket-id>]`, `<tags>...`. */
function usageWord(option: CliOption): string {
  const word = option.type.kind === 'array' ? `${option.label}...` : option.label;
  return option.required ? word : `[${word}]`;
}

/**
 * The text of `describe <tool>`: its name and title, its description, a usage line with the
 * positional arguments and required options, then each argument and option with its aliases,
 * type, required mark, allowed values, default and description from the input schema, wrapped
 * to the width.
 *
 * @example
 * ```ts
 * process.stdout.write(describeTool(tool.definition, cliOptionsOf(schema, cli), { command: 'desk call' }));
 * ```
 */
export function describeTool(tool: CliToolSummary, table: CliOptionTable, options: HelpTextOptions = {}): string {
  const width = options.width ?? 80;
  const command = options.command ?? 'call';
  const positional = table.positional;
  const named = table.options.filter((option) => option.position === undefined);
  const lines: string[] = [tool.title ? `${tool.name} — ${tool.title}` : tool.name];
  if (tool.description?.trim()) lines.push('', ...wrap(tool.description.trim(), width));

  const usage = [
    `Usage: ${command} ${tool.name}`,
    ...positional.map(usageWord),
    ...named
      .filter((option) => option.required && hasNames(option))
      .map((option) => (option.negatable ? option.label : `${option.label} ${placeholder(option.type)}`)),
    '[options]',
  ];
  // Continuation lines start under the first argument.
  const hang = ' '.repeat(Math.min(usage[0].length + 1, 40));
  const usageLines = wrap(usage.slice(1).join(' '), Math.max(width - hang.length, 20));
  lines.push('', `${usage[0]} ${usageLines[0]}`, ...usageLines.slice(1).map((line) => hang + line));

  const lefts = [...positional.map((option) => option.label), ...named.map(optionNames), '--json <object|->'].map(
    (left) => INDENT.length + left.length + 2,
  );
  // Half the width at most, so that a narrow terminal still has room for descriptions.
  const leftWidth = Math.min(Math.max(...lefts), LEFT_COLUMN, Math.floor(width / 2));

  if (positional.length > 0) {
    lines.push('', 'Arguments:');
    for (const option of positional) {
      const also = option.long.length > 0 ? [`also --${option.long[0]}`] : [];
      const required = option.required ? ['required'] : [];
      const detail = details(option, [...required, typeName(option.type), ...also]);
      lines.push(...entry(option.label, option.description, detail, leftWidth, width));
    }
  }
  lines.push('', 'Options:');
  for (const option of named.filter(hasNames))
    lines.push(...entry(optionNames(option), option.description, details(option), leftWidth, width));
  const jsonOnly = named.filter((option) => !hasNames(option));
  lines.push(
    ...entry(
      '--json <object|->',
      'All arguments as one JSON object; - reads it from stdin. Options given as well override its properties.' +
        (jsonOnly.length > 0
          ? ` Only there: ${jsonOnly.map((option) => `${option.property}${option.required ? ' (required)' : ''}`).join(', ')}.`
          : ''),
      '',
      leftWidth,
      width,
    ),
  );
  return `${lines.join('\n')}\n`;
}
