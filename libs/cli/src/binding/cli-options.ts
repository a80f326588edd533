import { cliNamesOf, kebabCase, type CliPropertyNames } from '#libs/catalog';
import type { JsonSchemaObject, McpToolCliOptions } from '#libs/core';

/** One top-level property of a tool's input, as the command line gives it: its names, and what help shows. */
export interface CliOption extends CliPropertyNames {
  /** Whether the input schema requires it. */
  readonly required: boolean;
  /** From the property's schema, for help. */
  readonly description?: string;
  /** The schema's `default`, for help (the binder does not fill it in: the tool's own validation does). */
  readonly default?: unknown;
  /** How messages and help name it: `--ticket-id`, or `<ticket-id>` for a positional argument. */
  readonly label: string;
}

/** An option found by one of its spellings. */
export interface CliOptionMatch {
  readonly option: CliOption;
  /** Typed as `--no-<name>`. */
  readonly negated: boolean;
}

/**
 * The command-line options of one tool, read from its input schema and `cli` declaration: what
 * `bindArguments` binds a command line with, `describeTool` documents, and a shell completes.
 */
export class CliOptionTable {
  /** The positional properties in order. */
  readonly positional: readonly CliOption[];
  private readonly longs = new Map<string, CliOptionMatch>();
  private readonly shorts = new Map<string, CliOption>();

  constructor(readonly options: readonly CliOption[]) {
    this.positional = options
      .filter((option) => option.position !== undefined)
      .sort((a, b) => a.position! - b.position!);
    for (const option of options) {
      for (const name of option.long) {
        this.longs.set(name.toLowerCase(), { option, negated: false });
        if (option.negatable) this.longs.set(`no-${name}`.toLowerCase(), { option, negated: true });
      }
      for (const letter of option.short) this.shorts.set(letter, option);
    }
  }

  /** The option typed as `--name` (any case), `--no-name` or `-x`, if there is one. */
  find(typed: string): CliOptionMatch | undefined {
    if (typed.startsWith('--')) return this.longs.get(typed.slice(2).toLowerCase());
    const option = typed.startsWith('-') ? this.shorts.get(typed.slice(1)) : undefined;
    return option && { option, negated: false };
  }

  /** Every spelling the table answers to (`--status`, `--no-dry-run`, `-s`), for suggestions and completion. */
  spellings(): string[] {
    return this.options.flatMap((option) => [
      ...option.long.flatMap((name) => [`--${name}`, ...(option.negatable ? [`--no-${name}`] : [])]),
      ...option.short.map((letter) => `-${letter}`),
    ]);
  }
}

/**
 * The option table of a tool: each top-level property of its input schema becomes `--kebab-case`
 * (also its own camelCase or snake_case spelling; long options ignore case), a boolean also
 * `--no-kebab-case`, and the `cli` declaration adds positional arguments, aliases and CLI names.
 * Names the declaration gives twice, or that the CLI keeps for itself, go to the first claimant
 * (the start-up check refuses such declarations; a tool that declares nothing is not checked).
 *
 * @example
 * ```ts
 * const table = cliOptionsOf(tool.definition.inputSchema, tool.options.cli);
 * table.find('--Customer-Id')?.option.property; // 'customerId'
 * ```
 */
export function cliOptionsOf(schema: JsonSchemaObject, cli?: McpToolCliOptions): CliOptionTable {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const options = cliNamesOf(schema, cli).map((names): CliOption => {
    const propertySchema = properties[names.property];
    const { description, default: defaultValue } =
      typeof propertySchema === 'object' && propertySchema !== null
        ? (propertySchema as { description?: unknown; default?: unknown })
        : {};
    const label =
      names.position !== undefined
        ? `<${names.long[0] ?? (kebabCase(names.property) || names.property)}>`
        : names.long.length > 0
          ? `--${names.long[0]}`
          : names.short.length > 0
            ? `-${names.short[0]}`
            : `--json property "${names.property}"`;
    return {
      ...names,
      required: required.has(names.property),
      ...(typeof description === 'string' && { description }),
      ...(defaultValue !== undefined && { default: defaultValue }),
      label,
    };
  });
  return new CliOptionTable(options);
}
