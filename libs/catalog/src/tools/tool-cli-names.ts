import type { JsonSchemaObject, McpToolCliOptions } from '#libs/core';
import { CatalogCliMessages } from '../messages/catalog-cli.messages';
import { cliValueTypeOf, isCliFlag, type CliValueType } from './cli-value-type';

/**
 * The options the CLI keeps for itself: no property may take them. Long options ignore case.
 *
 * @internal shared with the CLI.
 */
export const CLI_RESERVED_OPTIONS: readonly string[] = [
  '--help',
  '-h',
  '--json',
  '--output',
  '--out-dir',
  '--yes',
  '--api-key',
];

/**
 * The command-line names of one top-level property of a tool's input schema.
 *
 * @internal
 */
export interface CliPropertyNames {
  /** The property, as the input schema names it. */
  readonly property: string;
  /** Its long options without `--`, the one to show first (the CLI name, else the kebab-case name). */
  readonly long: readonly string[];
  /** Its short options without `-` (one letter each, case counts). */
  readonly short: readonly string[];
  /** Whether `--no-<long>` gives `false` (a boolean property). */
  readonly negatable: boolean;
  /** How its value is written. */
  readonly type: CliValueType;
  /** Its place among the positional arguments, when it is one. */
  readonly position?: number;
}

type Report = (message: { problem: string; fix: string }) => void;

/** A long option name without its dashes: a letter or digit, then letters, digits, `_`, `.`, `-`. */
const LONG = /^[\p{L}\p{N}][\p{L}\p{N}_.-]*$/u;
const SHORT_ALIAS = /^-[A-Za-z]$/;
const LONG_ALIAS = /^--[\p{L}\p{N}][\p{L}\p{N}_.-]*$/u;

/**
 * `ticketId`, `ticket_id`, `TicketID` → `ticket-id`; empty when the name has no letter or digit.
 *
 * @internal
 */
export function kebabCase(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1-$2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1-$2')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The key an option is matched by: long options ignore case, short ones do not. */
function keyOf(option: string): string {
  return option.startsWith('--') ? option.toLowerCase() : option;
}

/**
 * Resolves the command-line names of every top-level property of a tool's input schema from its
 * `cli` declaration, and reports each problem of the declaration: a name of no property, a
 * malformed alias or CLI name, two properties sharing an option (kebab-case names, original
 * spellings, CLI names, aliases and `--no-` negations; long options ignore case), an option the
 * CLI keeps for itself, an object positional, an array positional before the last.
 *
 * Whatever is reported, the names returned are usable: a name taken by a reserved option or by
 * an earlier property is left out for the later one, a malformed one is ignored.
 *
 * @internal the catalog checks declarations with it at start-up; the CLI builds its option table from it.
 */
export function cliNamesOf(
  schema: JsonSchemaObject,
  cli: McpToolCliOptions | undefined,
  report: Report = () => undefined,
): CliPropertyNames[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const propertyNames = Object.keys(properties);
  const known = new Set(propertyNames);
  const declared = isRecord(cli) ? (cli as McpToolCliOptions) : {};
  if (cli !== undefined && !isRecord(cli)) report(CatalogCliMessages.notObject('cli', cli));

  const names = readMap('names', declared.names, known, report);
  const aliases = readMap('aliases', declared.aliases, known, report);
  const positions = readPositional(declared.positional, known, report);
  const types = new Map(propertyNames.map((name) => [name, cliValueTypeOf(properties[name], schema)]));

  // Who holds each option: the CLI's own first, then the properties in schema order.
  const owners = new Map<string, string | undefined>(CLI_RESERVED_OPTIONS.map((option) => [keyOf(option), undefined]));
  const claim = (property: string, option: string, source: string): boolean => {
    const key = keyOf(option);
    if (!owners.has(key)) {
      owners.set(key, property);
      return true;
    }
    const owner = owners.get(key);
    if (owner === property) return true;
    if (owner === undefined) report(CatalogCliMessages.reserved(option, property, source));
    else report(CatalogCliMessages.clash(option, owner, property, source));
    return false;
  };

  return propertyNames.map((property) => {
    const type = types.get(property)!;
    const negatable = isCliFlag(type);
    const long: string[] = [];
    const short: string[] = [];
    const tried = new Set<string>();
    const addLong = (name: string, source: string) => {
      // `status` is its own kebab-case name: one option, claimed (and reported) once.
      if (tried.has(name.toLowerCase())) return;
      tried.add(name.toLowerCase());
      if (!claim(property, `--${name}`, source)) return;
      // A negation that is taken leaves the name itself usable.
      if (negatable) claim(property, `--no-${name}`, `the negation of --${name}`);
      long.push(name);
    };

    const cliName = names.get(property);
    if (typeof cliName === 'string') {
      if (LONG.test(cliName)) addLong(cliName, 'its CLI name');
      else report(CatalogCliMessages.malformedName(property, cliName));
    } else {
      const kebab = kebabCase(property);
      if (kebab) addLong(kebab, 'its kebab-case name');
      if (LONG.test(property)) addLong(property, 'its own name');
      else if (!kebab && !aliases.has(property)) report(CatalogCliMessages.noName(property));
    }
    const declaredAliases = aliases.get(property);
    const aliasList = Array.isArray(declaredAliases) ? declaredAliases : [declaredAliases];
    for (const alias of declaredAliases === undefined ? [] : aliasList) {
      if (typeof alias === 'string' && SHORT_ALIAS.test(alias)) {
        if (!short.includes(alias.slice(1)) && claim(property, alias, `its alias ${alias}`)) short.push(alias.slice(1));
      } else if (typeof alias === 'string' && LONG_ALIAS.test(alias)) addLong(alias.slice(2), `its alias ${alias}`);
      else report(CatalogCliMessages.malformedAlias(property, alias));
    }

    const position = positions.get(property);
    if (position !== undefined) {
      if (type.kind === 'json') report(CatalogCliMessages.objectPositional(property));
      else if (type.kind === 'array' && position < positions.size - 1)
        report(CatalogCliMessages.arrayPositionalNotLast(property));
    }
    return { property, long, short, negatable, type, ...(position !== undefined && { position }) };
  });
}

/** A `{ property: value }` map of the declaration, its keys checked against the schema. */
function readMap(
  field: 'names' | 'aliases',
  value: unknown,
  known: ReadonlySet<string>,
  report: Report,
): Map<string, unknown> {
  if (value === undefined) return new Map();
  if (!isRecord(value)) {
    report(CatalogCliMessages.notObject(`cli.${field}`, value));
    return new Map();
  }
  for (const property of Object.keys(value))
    if (!known.has(property)) report(CatalogCliMessages.unknownProperty(`cli.${field}`, property, [...known]));
  return new Map(Object.entries(value).filter(([property]) => known.has(property)));
}

/** Each positional property's place, checked against the schema. */
function readPositional(value: unknown, known: ReadonlySet<string>, report: Report): Map<string, number> {
  const positions = new Map<string, number>();
  if (value === undefined) return positions;
  if (!Array.isArray(value)) {
    report(CatalogCliMessages.positionalNotList(value));
    return positions;
  }
  for (const property of value) {
    if (typeof property !== 'string' || !known.has(property))
      report(CatalogCliMessages.unknownProperty('cli.positional', property, [...known]));
    else if (positions.has(property)) report(CatalogCliMessages.positionalTwice(property));
    else positions.set(property, positions.size);
  }
  return positions;
}
