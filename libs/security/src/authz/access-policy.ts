import { Inject, Injectable } from '@nestjs/common';
import type { McpCallKind, McpPrincipal } from '#libs/core';

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
  /**
   * Optional: whether every caller, authenticated or not, may see and use an entry with these
   * requirements. Only lists and reads made of such entries can be marked `cacheScope: "public"`
   * for 2026-07-28 clients (a shared cache may serve them to anyone); without this method, none is.
   */
  allowsEveryone?(requirements: AccessRequirements): boolean;
  /**
   * Optional: a rule on the call itself, for decisions that need the arguments or the tenant
   * (in `principal.claims`). Runs after the entry was found visible; `false` refuses the call
   * with a clear "not allowed" (the entry's existence is no secret to this caller).
   */
  authorizeCall?(principal: McpPrincipal, call: McpCallRequest): boolean | Promise<boolean>;
}

/** A call as the access policy sees it. */
export interface McpCallRequest {
  kind: McpCallKind;
  /** Tool or prompt name, or resource URI. */
  name: string;
  /** The call's arguments (template variables for resources). */
  args: Readonly<Record<string, unknown>>;
  requirements: AccessRequirements;
}

/** Token of the access policy in use (the `accessPolicy` module extra, `ScopeAndRolePolicy` by default). */
export const MCP_ACCESS_POLICY = Symbol('MCP:ACCESS_POLICY');

/**
 * Injects the access policy in use.
 * @example
 * ```ts
 * constructor(@InjectAccessPolicy() private readonly policy: McpAccessPolicy) {}
 * ```
 */
export const InjectAccessPolicy = (): ParameterDecorator => Inject(MCP_ACCESS_POLICY);

/** All required scopes, and one of the required roles when there are any. */
@Injectable()
export class ScopeAndRolePolicy implements McpAccessPolicy {
  allows(principal: McpPrincipal, { scopes, roles }: AccessRequirements): boolean {
    return (
      scopes.every((scope) => principal.scopes.includes(scope)) &&
      (roles.length === 0 || roles.some((role) => principal.roles.includes(role)))
    );
  }

  visibilityKey(principal: McpPrincipal): string {
    return `${[...principal.scopes].sort().join(' ')}|${[...principal.roles].sort().join(' ')}`;
  }

  /** An entry that requires no scope and no role is open to every caller. */
  allowsEveryone({ scopes, roles }: AccessRequirements): boolean {
    return scopes.length === 0 && roles.length === 0;
  }
}
