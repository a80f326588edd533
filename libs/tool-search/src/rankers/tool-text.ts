import type { SearchableTool } from './searchable-tool';

/** The parts of a tool that are searched; a ranker weighs each differently. */
export type ToolField = 'name' | 'title' | 'description' | 'propertyNames' | 'propertyDescriptions';

/** Every searched field, in a fixed order (rankers keep per-field figures in this order). */
export const TOOL_FIELDS: readonly ToolField[] = [
  'name',
  'title',
  'description',
  'propertyNames',
  'propertyDescriptions',
];

/** The tokens of each field of one tool, repeated as often as they occur. */
export type ToolFieldTokens = Record<ToolField, string[]>;

/**
 * Words that say nothing about what a tool does. Kept short on purpose: verbs such as "get",
 * "list" or "send" stay, because tool names are made of them.
 */
const STOP_WORDS = new Set(
  (
    'a an the and or but nor of to in on at by for with from into onto via about as than then ' +
    'is are was were be been being am it its this that these those there here ' +
    'i me my we us our you your he she him her his they them their ' +
    'what which who whom whose when where why how ' +
    'all any some each every no not only own same such so too very just also ' +
    'do does did done can could would should will shall may might must have has had ' +
    'if else while please want wants like let lets using'
  ).split(' '),
);

/** Schemas nested deeper than this are not read (a guard against huge or self-similar schemas). */
const MAX_SCHEMA_DEPTH = 6;

/**
 * Splits text and identifiers into lower-cased words: camelCase, PascalCase and acronyms (a
 * plural acronym such as "APIs" is read as the acronym), snake_case, kebab-case, dotted and
 * namespaced names (`github__create_issue`), and letters from digits. Single letters are
 * dropped; numbers are kept.
 * @example
 * ```ts
 * splitWords('github__createPullRequest'); // ['github', 'create', 'pull', 'request']
 * splitWords('parseHTTPHeaders2');         // ['parse', 'http', 'headers', '2']
 * splitWords('listOpenPRs');               // ['list', 'open', 'prs']
 * ```
 */
export function splitWords(text: string): string[] {
  return (
    text
      // A plural acronym is the acronym (APIs → API); one ends where a capitalised word starts
      // (HTTPHeaders → HTTP Headers).
      .replace(/(\p{Lu}{2,})s(?!\p{Ll})/gu, '$1')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{L})(\p{N})/gu, '$1 $2')
      .replace(/(\p{N})(\p{L})/gu, '$1 $2')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 1 || /\p{N}/u.test(word))
  );
}

const VOWEL = /[aeiouy]/;

/**
 * Reduces a lower-cased word to a stem shared with its inflections, so that "tickets" meets
 * "ticket" and "closing" meets "close": plurals, -ed, -ing, -ly and -ment are stripped, then a
 * final "e" is dropped and a final "y" becomes "i" (so "entry" and "entries" agree). Lighter
 * than Porter's stemmer on purpose: it only has to make a query and a tool definition meet,
 * and every rule it skips is a false match it cannot make.
 * @example
 * ```ts
 * stem('tickets'); // 'ticket'
 * stem('closing'); // 'clos', as stem('close') and stem('closed')
 * ```
 */
export function stem(word: string): string {
  if (word.length < 3 || /\d/.test(word)) return word;
  let stemmed = stripPlural(word);
  stemmed = stripVerbEnding(stemmed);
  stemmed = stripEnding(stemmed, 'ly', (rest) => rest.length >= 4 && !/[aeioup]$/.test(rest));
  stemmed = stripEnding(stemmed, 'ment', (rest) => rest.length >= 3);
  if (stemmed.length > 3 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1);
  if (stemmed.length > 2 && stemmed.endsWith('y')) stemmed = `${stemmed.slice(0, -1)}i`;
  return stemmed;
}

function stripPlural(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}i`;
  // "status", "access" and "analysis" are not plurals; "boxes" → "boxe" → "box" once the e goes.
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function stripVerbEnding(word: string): string {
  if (word.endsWith('ied') && word.length > 4) return `${word.slice(0, -3)}i`;
  if (word.endsWith('eed')) return word; // need, feed, speed
  for (const ending of ['ing', 'ed']) {
    if (!word.endsWith(ending)) continue;
    const rest = word.slice(0, -ending.length);
    // "string" and "bring" keep their "ing": what is left has no vowel.
    return rest.length >= 3 && VOWEL.test(rest) ? undouble(rest) : word;
  }
  return word;
}

/**
 * shipp(ed) → ship, logg(ing) → log, and British cancell(ed) → cancel; but bill(ing), pass(ed)
 * and add(ed) keep both letters.
 */
function undouble(rest: string): string {
  if (rest.length >= 6 && rest.endsWith('ell')) return rest.slice(0, -1);
  const last = rest[rest.length - 1];
  const doubled = last === rest[rest.length - 2] && !/[aeioulsz]/.test(last);
  return doubled && !(rest.length === 3 && /^[aeiou]/.test(rest)) ? rest.slice(0, -1) : rest;
}

function stripEnding(word: string, ending: string, keep: (rest: string) => boolean): string {
  if (!word.endsWith(ending)) return word;
  const rest = word.slice(0, -ending.length);
  return keep(rest) ? rest : word;
}

/**
 * The search tokens of prose (a description, a title, a query): its words ({@link splitWords})
 * without stop words, stemmed ({@link stem}). A capitalised word with inner capitals is a name
 * written as one word ("GitHub", "PagerDuty") and stays whole, as tool names spell it
 * (`github__create_issue`); letters with digits ("S3", "OAuth2") yield their parts and the
 * whole word, as they do in identifiers.
 * @example
 * ```ts
 * tokenize('Closing the open tickets'); // ['clos', 'open', 'ticket']
 * tokenize('GitHub issues on EC2');     // ['github', 'issu', 'ec', '2', 'ec2']
 * ```
 */
export function tokenize(text: string): string[] {
  return tokenizeWith(text, (chunk, words) => (isPascalCase(chunk) ? [] : words));
}

/**
 * The search tokens of an identifier (a tool or property name): as {@link tokenize}, except
 * that every word of a PascalCase chunk counts (`CreateIssue` is create + issue), followed by
 * the whole chunk (so a tool named `HubSpotSync` still meets the query "HubSpot sync").
 * @example
 * ```ts
 * tokenizeIdentifier('github__create_issue'); // ['github', 'creat', 'issu']
 * tokenizeIdentifier('PagerDutyIncidents');   // ['pager', 'duti', 'incident', 'pagerdutyincident']
 * ```
 */
export function tokenizeIdentifier(name: string): string[] {
  return tokenizeWith(name, (_chunk, words) => words);
}

/** Capitalised with inner capitals: GitHub, OAuth, CreateIssue; not Ticket, HTTP or APIs. */
const isPascalCase = (chunk: string): boolean =>
  /^\p{Lu}.*\p{Lu}/u.test(chunk) && /\p{Ll}/u.test(chunk) && !/^\p{Lu}+s$/u.test(chunk);
/** One word, lower-case or capitalised: nothing for {@link splitWords} to split. */
const PLAIN_WORD = /^\p{L}\p{Ll}+$/u;

/** S3, ec2, OAuth2. */
const hasDigitsAndLetters = (chunk: string): boolean => /\p{L}/u.test(chunk) && /\p{N}/u.test(chunk);

/**
 * Tokens chunk by chunk (runs of letters and digits): the words `select` keeps, stemmed and
 * without stop words, then the whole chunk when it is a compound whose words were split.
 */
function tokenizeWith(text: string, select: (chunk: string, words: string[]) => string[]): string[] {
  const tokens: string[] = [];
  for (const chunk of text.split(/[^\p{L}\p{N}]+/u)) {
    if (chunk === '') continue;
    // Most chunks are one plain word ("tickets", "Lists"): they skip the splitting rules.
    const words = PLAIN_WORD.test(chunk) ? [chunk.toLowerCase()] : splitWords(chunk);
    for (const word of select(chunk, words)) {
      if (!STOP_WORDS.has(word)) tokens.push(stem(word));
    }
    const whole = chunk.toLowerCase();
    const split = words.length !== 1 || words[0] !== whole;
    if (split && (hasDigitsAndLetters(chunk) || isPascalCase(chunk))) tokens.push(stem(whole));
  }
  return tokens;
}

/**
 * The tokens of each searched field of a tool: its name, title and description, the names of
 * its input schema's properties (nested objects and array items included), and the
 * properties' titles, descriptions and string enum values. `$ref`s are not followed.
 * @example
 * ```ts
 * toolFields({ name: 'shipParcel', inputSchema: { properties: { zip: { description: 'Postal code' } } } });
 * // { name: ['ship', 'parcel'], …, propertyNames: ['zip'], propertyDescriptions: ['postal', 'cod'] }
 * ```
 */
export function toolFields(tool: SearchableTool): ToolFieldTokens {
  const fields: ToolFieldTokens = {
    name: tokenizeIdentifier(tool.name),
    title: tokenize(tool.title ?? ''),
    description: tokenize(tool.description ?? ''),
    propertyNames: [],
    propertyDescriptions: [],
  };
  forEachProperty(tool.inputSchema, (name, about) => {
    fields.propertyNames.push(...tokenizeIdentifier(name));
    for (const text of about) fields.propertyDescriptions.push(...tokenize(text));
  });
  return fields;
}

/**
 * A tool as one plain text, for rankers that read prose rather than tokens (text embedders):
 * its name as words, title, description, then one line per property.
 * @example
 * ```ts
 * toolText({ name: 'create_issue', description: 'Opens an issue.' }); // 'create issue\nOpens an issue.'
 * ```
 */
export function toolText(tool: SearchableTool): string {
  const lines = [splitWords(tool.name).join(' ')];
  if (tool.title) lines.push(tool.title);
  if (tool.description) lines.push(tool.description);
  forEachProperty(tool.inputSchema, (name, about) => {
    lines.push([splitWords(name).join(' '), ...about].join(': '));
  });
  return lines.join('\n');
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Calls `visit` with each property's name and its texts (title, description, string enum values). */
function forEachProperty(schema: unknown, visit: (name: string, about: string[]) => void, depth = 0): void {
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return;
  if (isObject(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      const about: string[] = [];
      if (isObject(property)) {
        for (const key of ['title', 'description']) {
          if (typeof property[key] === 'string') about.push(property[key]);
        }
        if (Array.isArray(property.enum)) {
          for (const value of property.enum) if (typeof value === 'string') about.push(value);
        }
      }
      visit(name, about);
      forEachProperty(property, visit, depth + 1);
    }
  }
  // Where nested properties hide: array items and the variants of a union.
  forEachProperty(schema.items, visit, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const variants = schema[key];
    if (Array.isArray(variants)) for (const variant of variants) forEachProperty(variant, visit, depth + 1);
  }
}
