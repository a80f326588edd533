import type { CatalogSnapshot, SnapshotAccess } from './catalog-snapshot';

/** What changed between a committed snapshot and the catalog now: what breaks a caller, and the rest. */
export interface CatalogDiff {
  /** Changes a caller written against the snapshot can fail on (each a line). */
  readonly breaking: string[];
  /** Additions and changes no such caller fails on, listed for the reviewer (wider access among them). */
  readonly changes: string[];
}

type Schema = Record<string, unknown>;

/**
 * Compares the catalog `now` with the `before` snapshot, as a caller written against `before`
 * sees it. Breaking: an entry removed; an argument removed, newly required, of another type, an
 * allowed value or a pattern changed; a field of the output removed, no longer guaranteed, of
 * another type or with new values; an output schema dropped; an annotation that says the tool
 * does more (no longer read-only or idempotent, now destructive or open-world); access narrowed
 * (a scope or a role required that was not). The rest (entries added, descriptions, optional
 * arguments, access widened) is listed as a change.
 */
export function diffCatalogs(before: CatalogSnapshot, now: CatalogSnapshot): CatalogDiff {
  const diff: CatalogDiff = { breaking: [], changes: [] };
  const sections = [
    ['tools', 'tool'],
    ['prompts', 'prompt'],
    ['resources', 'resource'],
    ['resourceTemplates', 'resource template'],
  ] as const;
  for (const [section, noun] of sections) {
    const old = before[section] ?? {};
    const current = now[section] ?? {};
    for (const name of Object.keys(old)) if (!(name in current)) diff.breaking.push(`${noun} "${name}" was removed`);
    for (const name of Object.keys(current)) {
      const where = `${noun} "${name}"`;
      if (!(name in old)) {
        diff.changes.push(`${where} was added`);
        continue;
      }
      const [a, b] = [
        old[name] as unknown as Record<string, unknown>,
        current[name] as unknown as Record<string, unknown>,
      ];
      if (a.description !== b.description) diff.changes.push(`${where}: description changed`);
      if (a.title !== b.title) diff.changes.push(`${where}: title changed`);
      if (a.mimeType !== b.mimeType)
        diff.breaking.push(`${where}: MIME type ${show(a.mimeType)} is now ${show(b.mimeType)}`);
      compareAccess(where, a.access as SnapshotAccess, b.access as SnapshotAccess, diff);
      if (section === 'tools') compareTool(where, a, b, diff);
      if (section === 'prompts') comparePrompt(where, a, b, diff);
    }
  }
  return diff;
}

function compareAccess(where: string, a: SnapshotAccess | undefined, b: SnapshotAccess | undefined, diff: CatalogDiff) {
  const before = a ?? { scopes: [], roles: [] };
  const now = b ?? { scopes: [], roles: [] };
  for (const scope of now.scopes)
    if (!before.scopes.includes(scope)) diff.breaking.push(`${where}: now requires the scope "${scope}"`);
  for (const scope of before.scopes)
    if (!now.scopes.includes(scope))
      diff.changes.push(`${where}: no longer requires the scope "${scope}" (wider access)`);
  // Roles: one of them is required; none means anyone.
  const lost = before.roles.length === 0 ? now.roles : before.roles.filter((role) => !now.roles.includes(role));
  if (now.roles.length > 0 && lost.length > 0)
    diff.breaking.push(`${where}: now requires one of the roles ${now.roles.map(show).join(', ')}`);
  else if (!sameList(before.roles, now.roles))
    diff.changes.push(`${where}: roles ${list(before.roles)} are now ${list(now.roles)} (wider access)`);
}

/** The annotations that, turned this way, say a tool does more than before. */
const RISKIER: Record<string, (before: unknown, now: unknown) => boolean> = {
  readOnlyHint: (before, now) => before === true && now !== true,
  idempotentHint: (before, now) => before === true && now !== true,
  destructiveHint: (before, now) => before === false && now !== false,
  openWorldHint: (before, now) => before === false && now !== false,
};

function compareTool(where: string, a: Record<string, unknown>, b: Record<string, unknown>, diff: CatalogDiff) {
  compareSchema(`${where}: argument`, a.inputSchema as Schema, b.inputSchema as Schema, 'input', diff);
  if (a.outputSchema && !b.outputSchema) diff.breaking.push(`${where}: its output schema was removed`);
  else if (!a.outputSchema && b.outputSchema) diff.changes.push(`${where}: declares an output schema`);
  else if (a.outputSchema && b.outputSchema)
    compareSchema(`${where}: output field`, a.outputSchema as Schema, b.outputSchema as Schema, 'output', diff);
  const before = (a.annotations ?? {}) as Record<string, unknown>;
  const now = (b.annotations ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(now)])) {
    if (before[key] === now[key]) continue;
    const line = `${where}: annotation ${key} ${show(before[key])} is now ${show(now[key])}`;
    (RISKIER[key]?.(before[key], now[key]) ? diff.breaking : diff.changes).push(line);
  }
}

function comparePrompt(where: string, a: Record<string, unknown>, b: Record<string, unknown>, diff: CatalogDiff) {
  type Argument = { name: string; required: boolean };
  const before = new Map((a.arguments as Argument[]).map((argument) => [argument.name, argument]));
  const now = new Map((b.arguments as Argument[]).map((argument) => [argument.name, argument]));
  for (const [name] of before) if (!now.has(name)) diff.breaking.push(`${where}: argument "${name}" was removed`);
  for (const [name, argument] of now) {
    const old = before.get(name);
    if (argument.required && !old?.required)
      diff.breaking.push(`${where}: argument "${name}" is ${old ? 'now required' : 'new and required'}`);
    else if (!old) diff.changes.push(`${where}: optional argument "${name}" was added`);
  }
}

/**
 * Compares two JSON Schemas of an object, field by field and into nested objects and array items.
 * `input` is what callers send (it must accept at least what it did), `output` what they receive
 * (it must promise at least what it did).
 */
function compareSchema(label: string, a: Schema, b: Schema, side: 'input' | 'output', diff: CatalogDiff, path = '') {
  const [typeA, typeB] = [typesOf(a), typesOf(b)];
  const at = path
    ? `${label} "${path}"`
    : label.replace(/ (argument|output field)$/, side === 'input' ? ' arguments' : ' output');
  if (typeA && typeB && !sameList(typeA, typeB)) {
    const narrower = side === 'input' ? typeA.some((t) => !typeB.includes(t)) : typeB.some((t) => !typeA.includes(t));
    (narrower ? diff.breaking : diff.changes).push(`${at}: type ${list(typeA)} is now ${list(typeB)}`);
  }
  const [enumA, enumB] = [a.enum as unknown[] | undefined, b.enum as unknown[] | undefined];
  if (enumA || enumB) {
    const gone = enumA && enumB ? enumA.filter((v) => !enumB.some((w) => same(v, w))) : [];
    const added = enumA && enumB ? enumB.filter((v) => !enumA.some((w) => same(v, w))) : [];
    if (side === 'input' && (gone.length > 0 || (!enumA && enumB)))
      diff.breaking.push(
        `${at}: no longer accepts ${enumA ? gone.map(show).join(', ') : `values outside ${enumB!.map(show).join(', ')}`}`,
      );
    if (side === 'output' && (added.length > 0 || (enumA && !enumB)))
      diff.breaking.push(`${at}: may now be ${enumB ? added.map(show).join(', ') : 'any value'}`);
  }
  if (side === 'input' && b.pattern !== undefined && a.pattern !== b.pattern)
    diff.breaking.push(`${at}: must now match ${show(b.pattern)}`);
  const [propsA, propsB] = [
    (a.properties ?? {}) as Record<string, Schema>,
    (b.properties ?? {}) as Record<string, Schema>,
  ];
  const [requiredA, requiredB] = [(a.required ?? []) as string[], (b.required ?? []) as string[]];
  const field = (name: string) => (path ? `${path}.${name}` : name);
  for (const name of Object.keys(propsA)) {
    if (!(name in propsB)) {
      diff.breaking.push(`${label} "${field(name)}" was removed`);
      continue;
    }
    compareSchema(label, propsA[name], propsB[name], side, diff, field(name));
  }
  for (const name of Object.keys(propsB)) {
    const isNew = !(name in propsA);
    if (side === 'input' && requiredB.includes(name) && !requiredA.includes(name))
      diff.breaking.push(`${label} "${field(name)}" is ${isNew ? 'new and required' : 'now required'}`);
    else if (isNew) diff.changes.push(`${label} "${field(name)}" was added`);
  }
  if (side === 'output')
    for (const name of requiredA)
      if (name in propsB && !requiredB.includes(name))
        diff.breaking.push(`${label} "${field(name)}" is no longer always given`);
  if (a.items && b.items && typeof a.items === 'object' && typeof b.items === 'object')
    compareSchema(label, a.items as Schema, b.items as Schema, side, diff, `${path || '(list)'}[]`);
}

const typesOf = (schema: Schema): string[] | undefined =>
  schema.type === undefined ? undefined : ([] as string[]).concat(schema.type as string | string[]).sort();
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v) => b.includes(v));
const show = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value));
const list = (values: readonly string[]) => (values.length === 0 ? '(none)' : values.join(' | '));
