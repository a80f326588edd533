import { createHash } from 'node:crypto';
import type { InstructionFlag } from './instruction-flags';

/** Where a pinned definition comes from: an upstream MCP server (`gateway`) or a REST API (`rest.apis`). */
export type PinOrigin = 'upstream' | 'api';

/** The kinds of definitions that are pinned. */
export type PinKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/**
 * What a definition is pinned on: what the model reads, what the host checks calls against and
 * what a client acts on — the description, the title, the schemas (a prompt's arguments), the
 * annotations, a resource's MIME type, its icons, and its whole `_meta` (an MCP Apps
 * `ui.resourceUri` makes a client render a view, `ui.visibility` decides who may call it,
 * `ui.csp` what a view may reach; other keys are read by other clients: none is left out).
 * Names and URIs are the pin's identity, not part of it.
 */
export interface PinnedDefinition {
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly arguments?: unknown;
  readonly annotations?: unknown;
  readonly mimeType?: string;
  readonly icons?: unknown;
  readonly _meta?: unknown;
}

/**
 * Which fields a pin's fingerprint covers: 1 (pins taken before `icons` and `_meta` were
 * pinned, which carry no `scheme`), 2 (every field of `PinnedDefinition`).
 */
export type PinScheme = 1 | 2;

/** The scheme of the pins taken now. */
export const PIN_SCHEME: PinScheme = 2;

/** One definition as it was accepted, or as it waits for review. */
export interface PinnedVersion {
  readonly fingerprint: string;
  readonly definition: PinnedDefinition;
  /** When it was seen first (pending) or accepted (ISO-8601). */
  readonly at: string;
  /** Who accepted it: an approver's id, or `first-use` for a definition accepted when first seen. */
  readonly by?: string;
  /** Which fields its fingerprint covers. @default 1 (a pin taken before the field was kept) */
  readonly scheme?: PinScheme;
}

/**
 * The pin of one upstream's or API's definition: what was accepted, and a changed definition that
 * waits for an approver (quarantined: hidden from lists, calls refused) or that one rejected.
 */
export interface CatalogPin {
  /** `upstream:wiki:tool:search` — origin, source, kind and the name its own server gives it. */
  readonly id: string;
  readonly origin: PinOrigin;
  readonly source: string;
  readonly kind: PinKind;
  readonly name: string;
  /** Absent for a new entry held for review (`newEntries: 'hold'`). */
  readonly accepted?: PinnedVersion;
  /** A definition other than the accepted one, waiting for review. */
  readonly pending?: PinnedVersion & {
    /** Instruction-like content aimed at the model, found in its texts. */
    readonly flags: readonly InstructionFlag[];
    /** Set when an approver rejected it: it stays quarantined, and leaves the review list. */
    readonly rejected?: { readonly by: string; readonly at: string };
  };
}

/** The id of a pin. */
export function pinId(origin: PinOrigin, source: string, kind: PinKind, name: string): string {
  return `${origin}:${source}:${kind}:${name}`;
}

/**
 * The fields of a definition that are pinned, from what its server lists (MCP field names), as
 * the pins of `scheme` cover them (the current one by default).
 */
export function pinnedDefinitionOf(
  definition: Record<string, unknown>,
  scheme: PinScheme = PIN_SCHEME,
): PinnedDefinition {
  const picked: Record<string, unknown> = {};
  for (const field of FIELDS_OF[scheme]) if (definition[field] !== undefined) picked[field] = definition[field];
  return picked as PinnedDefinition;
}

const PINNED_FIELDS = [
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'arguments',
  'annotations',
  'mimeType',
  'icons',
  '_meta',
] as const satisfies readonly (keyof PinnedDefinition)[];

/** The fields each scheme's fingerprint covers. */
const FIELDS_OF: Readonly<Record<PinScheme, readonly (keyof PinnedDefinition)[]>> = {
  1: PINNED_FIELDS.filter((field) => field !== 'icons' && field !== '_meta'),
  2: PINNED_FIELDS,
};

/**
 * A stable hash of a pinned definition: SHA-256 of its JSON with object keys sorted, so that a
 * server listing the same definition with its keys in another order is not a change.
 */
export function fingerprintOf(definition: PinnedDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** One field that differs between the accepted definition and the pending one. */
export interface PinChange {
  readonly field: keyof PinnedDefinition;
  readonly before: unknown;
  readonly after: unknown;
}

/** The fields that changed (all of them, for a new entry: `before` is `undefined`). */
export function changesOf(accepted: PinnedDefinition | undefined, pending: PinnedDefinition): PinChange[] {
  return PINNED_FIELDS.filter(
    (field) => canonicalJson(accepted?.[field] ?? null) !== canonicalJson(pending[field] ?? null),
  ).map((field) => ({ field, before: accepted?.[field], after: pending[field] }));
}
