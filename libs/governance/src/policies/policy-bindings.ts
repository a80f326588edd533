import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind, McpPrincipal } from '#libs/core';
import { celEngine } from './cel-engine';

/** Deeper than this, a value is `null` to a condition (arguments are JSON: real ones are shallow). */
const MAX_DEPTH = 32;

/**
 * A JSON-like value as CEL takes it, converted once: CEL would otherwise copy a plain object into a
 * map on every field a condition reads (measured: about three times the cost of a decision).
 * Numbers are CEL doubles (CEL compares them with ints: `args.amount <= 100` holds for 40).
 */
export function celValueOf(value: unknown, depth = 0): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null || depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) return celEngine().celList(value.map((item) => celValueOf(item, depth + 1)) as never);
  if (value instanceof Date) return value.toISOString();
  const map = new Map<string, unknown>();
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined && typeof item !== 'function') map.set(key, celValueOf(item, depth + 1));
  }
  return celEngine().celMap(map as never);
}

const principals = new WeakMap<McpPrincipal, unknown>();
const plainPrincipals = new WeakMap<McpPrincipal, object>();
const entries = new WeakMap<RegisteredHandler, unknown>();
const plainEntries = new WeakMap<RegisteredHandler, object>();
const EMPTY = Object.freeze({});
let empty: unknown;

/** `principal` as a condition sees it, as plain values (what the fast path reads), made once per principal. */
export function plainPrincipal(principal: McpPrincipal): object {
  let value = plainPrincipals.get(principal);
  if (value === undefined) {
    const { id, scopes, roles, claims } = principal;
    value = { id, scopes, roles, claims };
    plainPrincipals.set(principal, value);
  }
  return value;
}

/** `principal` for a condition, converted once per principal object. */
export function principalValue(principal: McpPrincipal): unknown {
  let value = principals.get(principal);
  if (value === undefined) {
    value = celValueOf(plainPrincipal(principal));
    principals.set(principal, value);
  }
  return value;
}

/** `entry` as a condition sees it, as plain values, made once per entry. */
export function plainEntry(kind: McpCallKind, entry: RegisteredHandler): object {
  let value = plainEntries.get(entry);
  if (value === undefined) {
    const definition = entry.definition as { annotations?: unknown };
    value = {
      kind,
      name: entry.key,
      origin: entry.origin?.kind ?? 'local',
      source: entry.origin?.name ?? '',
      route: entry.route ?? '',
      annotations: definition.annotations ?? {},
      scopes: entry.access.scopes,
      roles: entry.access.roles,
    };
    plainEntries.set(entry, value);
  }
  return value;
}

/** `entry` for a condition, converted once per entry. */
export function entryValue(kind: McpCallKind, entry: RegisteredHandler): unknown {
  let value = entries.get(entry);
  if (value === undefined) {
    value = celValueOf(plainEntry(kind, entry));
    entries.set(entry, value);
  }
  return value;
}

const clients = new WeakMap<object, unknown>();

const plainClients = new WeakMap<object, object>();

/** `client` as plain values (`{}` when the client named none), made once per client object. */
export function plainClient(client: { name: string; version: string } | undefined): object {
  if (!client) return EMPTY;
  let value = plainClients.get(client);
  if (value === undefined) {
    value = { name: client.name, version: client.version };
    plainClients.set(client, value);
  }
  return value;
}

/** `client` for a condition (`{}` when the client named none), converted once per client object. */
export function clientValue(client: { name: string; version: string } | undefined): unknown {
  if (!client) return (empty ??= celValueOf({}));
  let value = clients.get(client);
  if (value === undefined) {
    value = celValueOf(plainClient(client));
    clients.set(client, value);
  }
  return value;
}
