import { Inject, Injectable } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';

/** What an entry of the catalog asks of its callers (`@RequireScopes`, `@Roles`). */
export interface AccessRequirements {
  scopes: readonly string[];
  roles: readonly string[];
}

/**
 * Decides who may see and use each tool, prompt and resource. What it allows is exactly what
 * is listed, so replace it (`accessPolicy` module extra) rather than filtering elsewhere.
 */
export interface McpAccessPolicy {
  allows(principal: McpPrincipal, requirements: AccessRequirements): boolean;
  /** Callers with the same key see the same lists (list pages are cached per key). */
  visibilityKey(principal: McpPrincipal): string;
}

export const MCP_ACCESS_POLICY = Symbol('MCP:ACCESS_POLICY');
export const InjectAccessPolicy = () => Inject(MCP_ACCESS_POLICY);

/** All required scopes, and one of the required roles when there are any. */
@Injectable()
export class ScopeAndRolePolicy implements McpAccessPolicy {
  allows(principal: McpPrincipal, { scopes, roles }: AccessRequirements): boolean {
    return scopes.every((scope) => principal.scopes.includes(scope)) && (roles.length === 0 || roles.some((role) => principal.roles.includes(role)));
  }

  visibilityKey(principal: McpPrincipal): string {
    return `${[...principal.scopes].sort().join(' ')}|${[...principal.roles].sort().join(' ')}`;
  }
}
