import { hash } from 'node:crypto';
import type { McpPrincipal, McpSelectableEntry, McpServerSelection } from '#libs/core';
import { canonicalJson } from '#libs/security';
import type { ComposedServer, ComposedServerSelection } from '../document/composed-server';

/** One selection item compiled: its origin test, its name patterns, what a caller must hold. */
interface CompiledItem {
  from: ComposedServerSelection['from'];
  name: string | undefined;
  entries: RegExp | undefined;
  scopes: readonly string[];
  roles: readonly string[];
}

/**
 * A composed server's selection as the engine asks it (`McpPrincipal.server`): compiled once per
 * stored version of the server, asked for every entry of a list and every call through its path.
 */
export function serverSelection(server: ComposedServer): McpServerSelection {
  const items: CompiledItem[] = server.select.map((item) => ({
    from: item.from,
    name: item.name,
    entries: item.entries ? namePattern(item.entries) : undefined,
    scopes: item.scopes ?? [],
    roles: item.roles ?? [],
  }));
  const key = `${server.name}:${hashOf(canonicalJson({ select: server.select, title: server.title, description: server.description }))}`;
  return {
    name: server.name,
    key,
    info: {
      name: server.name,
      ...(server.title !== undefined && { title: server.title }),
      ...(server.description !== undefined && { instructions: server.description }),
    },
    selects: (entry, principal) => items.some((item) => selects(item, entry, principal)),
  };
}

function selects(item: CompiledItem, entry: McpSelectableEntry, principal: McpPrincipal): boolean {
  const origin = entry.origin ?? { kind: 'local' };
  return (
    origin.kind === item.from &&
    (item.name === undefined || origin.name === item.name) &&
    (item.entries === undefined || item.entries.test(entry.key)) &&
    item.scopes.every((scope) => principal.scopes.includes(scope)) &&
    (item.roles.length === 0 || item.roles.some((role) => principal.roles.includes(role)))
  );
}

/** `search_*`, `ledger__get_*`: `*` any characters, the rest as written, the whole name. */
export function namePattern(patterns: readonly string[]): RegExp {
  const alternatives = patterns.map((pattern) =>
    pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*'),
  );
  return new RegExp(`^(?:${alternatives.join('|')})$`);
}

/** A short digest of the selection: equal selections share list pages, a changed one gets new ones. */
const hashOf = (text: string): string => hash('sha256', text, 'base64url').slice(0, 22);
