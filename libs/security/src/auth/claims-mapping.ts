import type { OptionReport } from '#libs/core';

/**
 * Where one kind of grant (scopes or roles) comes from in an identity provider's token.
 *
 * @example
 * ```ts
 * // Entra ID app roles and Okta groups, translated to the host's roles
 * { from: ['roles', 'groups'], map: { 'Desk.Agent': ['agent'], 'desk-admins': ['admin'] } }
 * ```
 */
export interface McpClaimRule {
  /**
   * Claims to read, in order. A name found as it is at the top of the token is read as it is
   * (Auth0's namespaced `https://desk.example/roles`); otherwise dots walk into nested objects
   * (Keycloak's `realm_access.roles`). A string value is split on spaces (`scope`), an array taken
   * element by element (`scp`, `roles`, `groups`).
   */
  from: string[];
  /**
   * The IdP's values translated to the host's: each value the map names grants what it lists.
   * With a map, a value it does not name grants nothing (corporate group names never become
   * scopes by accident); without one, the values are the host's scopes or roles as they are.
   */
  map?: Record<string, string[]>;
}

/**
 * How an identity provider's claims become the host's scopes and roles, which `@RequireScopes`,
 * `@Roles` and the lists ⇔ calls policy then read.
 *
 * @example
 * ```ts
 * claims: {
 *   scopes: { from: ['scp', 'scope'] },
 *   roles: { from: ['roles', 'groups', 'realm_access.roles'], map: { 'Desk.Admin': ['admin'], 'support-agents': ['agent'] } },
 * }
 * ```
 */
export interface McpClaimsMapping {
  /** @default { from: ['scope', 'scp'] } */
  scopes?: McpClaimRule;
  /** @default { from: [rolesClaim ?? 'roles'] } */
  roles?: McpClaimRule;
}

const DEFAULT_SCOPES: McpClaimRule = { from: ['scope', 'scp'] };

/** Reads the host's scopes and roles out of a token's claims, by the rules compiled once. */
export class ClaimsMapper {
  private readonly scopes: CompiledRule;
  private readonly roles: CompiledRule;

  constructor(mapping: McpClaimsMapping | undefined, rolesClaim = 'roles') {
    this.scopes = compile(mapping?.scopes ?? DEFAULT_SCOPES);
    this.roles = compile(mapping?.roles ?? { from: [rolesClaim] });
  }

  scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
    return this.scopes(claims);
  }

  rolesOf(claims: Readonly<Record<string, unknown>>): string[] {
    return this.roles(claims);
  }
}

type CompiledRule = (claims: Readonly<Record<string, unknown>>) => string[];

function compile(rule: McpClaimRule): CompiledRule {
  const readers = rule.from.map(claimReader);
  const map = rule.map && new Map(Object.entries(rule.map));
  return (claims) => {
    const granted = new Set<string>();
    for (const read of readers) {
      for (const value of valuesOf(read(claims))) {
        if (!map) granted.add(value);
        else for (const mapped of map.get(value) ?? []) granted.add(mapped);
      }
    }
    return [...granted];
  };
}

function claimReader(name: string): (claims: Readonly<Record<string, unknown>>) => unknown {
  const path = name.split('.');
  return (claims) => {
    if (name in claims) return claims[name];
    let value: unknown = claims;
    for (const key of path) {
      if (typeof value !== 'object' || value === null) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}

function valuesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  return [];
}

/** Reports each problem of a `claims` option, with how to fix it. */
export function checkClaimsMapping(claims: unknown, where: string, report: OptionReport): void {
  if (claims === undefined) return;
  if (typeof claims !== 'object' || claims === null) {
    report(
      where,
      'must be an object',
      "e.g. claims: { roles: { from: ['groups'], map: { 'desk-admins': ['admin'] } } }",
    );
    return;
  }
  for (const [kind, rule] of Object.entries(claims as Record<string, unknown>)) {
    const at = `${where}.${kind}`;
    if (kind !== 'scopes' && kind !== 'roles') {
      report(at, 'is not a claims rule', "use 'scopes' and/or 'roles'");
      continue;
    }
    const { from, map } = (rule ?? {}) as { from?: unknown; map?: unknown };
    if (!Array.isArray(from) || from.length === 0 || from.some((name) => typeof name !== 'string' || !name))
      report(`${at}.from`, 'must list at least one claim name', "e.g. from: ['roles'] or from: ['realm_access.roles']");
    if (map === undefined) continue;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      report(`${at}.map`, "must map the IdP's values to lists of the host's", "e.g. map: { 'Desk.Admin': ['admin'] }");
      continue;
    }
    for (const [value, granted] of Object.entries(map)) {
      if (!Array.isArray(granted) || granted.some((item) => typeof item !== 'string' || !item))
        report(
          `${at}.map["${value}"]`,
          `must be a list of the host's ${kind}`,
          `e.g. ["${kind === 'roles' ? 'admin' : 'tickets:read'}"]`,
        );
    }
  }
}
