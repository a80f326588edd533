import type { CliLiteral, CliScalarType, CliValueType } from '#libs/catalog';
import { didYouMean } from './did-you-mean';

/** A word read as a value, or what the word should have been. */
export type ParsedWord = { readonly value: unknown } | WordProblem;

/** Why a word is not a value: what was expected, the part that was not (an item of a list), a hint. */
export interface WordProblem {
  readonly expected: string;
  readonly received?: string;
  readonly hint?: string;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const TYPE_NAMES: Record<CliScalarType, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};
/** The order a word is tried in: the narrowest reading first, a string last (it takes any word). */
const READ_ORDER: readonly CliScalarType[] = ['null', 'boolean', 'integer', 'number', 'string'];
/** The order messages name types in: null last (`an integer or null`). */
const NAME_ORDER: readonly CliScalarType[] = ['string', 'integer', 'number', 'boolean', 'null'];

function literalText(value: CliLiteral): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What a value of `type` looks like, for messages and help: `one of low, high`, `an integer`. */
export function expectedOf(type: CliValueType): string {
  switch (type.kind) {
    case 'scalar': {
      const parts = [
        ...(type.values ? [`one of ${type.values.map(literalText).join(', ')}`] : []),
        ...NAME_ORDER.filter((each) => type.types.includes(each)).map((each) => TYPE_NAMES[each]),
      ];
      return parts.length > 0 ? parts.join(' or ') : 'nothing (no value is allowed)';
    }
    case 'array':
      return `a list, each item ${expectedOf(type.items)}`;
    case 'json':
      return 'a JSON value';
    case 'any':
      return 'a value';
  }
}

/** One word as a scalar: an allowed literal, else the first type that reads it. */
function readScalar(word: string, type: Extract<CliValueType, { kind: 'scalar' }>): ParsedWord {
  const values = type.values ?? [];
  const exact = values.find((value) => literalText(value) === word);
  if (exact !== undefined || (values.includes(null) && word === 'null')) return { value: exact ?? null };
  for (const each of READ_ORDER.filter((candidate) => type.types.includes(candidate))) {
    if (each === 'null' && word === 'null') return { value: null };
    if (each === 'boolean' && /^(true|false)$/i.test(word)) return { value: word.toLowerCase() === 'true' };
    if (each === 'integer' && INTEGER.test(word) && Number.isSafeInteger(Number(word))) return { value: Number(word) };
    if (each === 'number' && NUMBER.test(word) && Number.isFinite(Number(word))) return { value: Number(word) };
    if (each === 'string') return { value: word };
  }
  // `--priority HIGH` means high when only one allowed value differs from it by case alone.
  const folded = values.filter((value) => literalText(value).toLowerCase() === word.toLowerCase());
  if (folded.length === 1) return { value: folded[0] };
  const near = didYouMean(word, values.map(literalText));
  return { expected: expectedOf(type), ...(near !== undefined && { hint: `did you mean ${near}?` }) };
}

function readJson(word: string): ParsedWord {
  try {
    return { value: JSON.parse(word) as unknown };
  } catch {
    return { expected: 'a JSON value' };
  }
}

/**
 * Reads one command-line word as a value of `type`. Numbers are read strictly (`12abc`, `1.5` for
 * an integer, an empty word are refused), booleans as `true`/`false`, `null` where the schema
 * allows null, enum members as written (or differing in case alone), JSON for objects.
 */
export function readWord(word: string, type: CliValueType): ParsedWord {
  switch (type.kind) {
    case 'scalar':
      return readScalar(word, type);
    case 'json':
      return readJson(word);
    case 'any': {
      const json = readJson(word);
      return 'value' in json ? json : { value: word };
    }
    case 'array': {
      const items = readItems(word, type.items);
      return Array.isArray(items) ? { value: items } : items;
    }
  }
}

/**
 * The items one word of an array option gives: a JSON array as written (`'["a,b","c"]'`), else
 * for JSON items one JSON value (an array of them spread), else a comma list, each read as an
 * item; an empty word gives none.
 */
export function readItems(word: string, items: CliValueType): unknown[] | WordProblem {
  if (word.trimStart().startsWith('[')) {
    const json = readJson(word);
    if ('value' in json && Array.isArray(json.value)) return json.value;
  }
  if (items.kind === 'json') {
    const json = readJson(word);
    return 'value' in json ? [json.value] : json;
  }
  if (word === '') return [];
  const values: unknown[] = [];
  for (const part of word.split(',')) {
    const parsed = readWord(part, items);
    if (!('value' in parsed)) return { ...parsed, received: part };
    values.push(parsed.value);
  }
  return values;
}
