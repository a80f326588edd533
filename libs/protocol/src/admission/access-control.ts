import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCallKind, type McpPrincipal } from '#libs/core';
import { McpGovernance, type ListCaller } from '#libs/governance';
import type { ListView, RegisteredHandler } from '#libs/catalog';
import { InjectAccessPolicy, type McpAccessPolicy } from '#libs/security';

/**
 * A refusal by the access policy. The client sees the same error as for an entry that does not
 * exist (or a plain "not allowed"); the audit trail records it as `denied`.
 */
export class AccessDeniedError extends JsonRpcError {}

/**
 * Applies the access policy to the catalog: what a caller may not use is neither listed nor
 * found, so lists and calls always agree and a hidden entry's existence is never revealed.
 */
@Injectable()
export class AccessControl {
  constructor(
    @InjectAccessPolicy() private readonly policy: McpAccessPolicy,
    @Optional() private readonly governance?: McpGovernance,
  ) {}

  allows(principal: McpPrincipal, entry: RegisteredHandler): boolean {
    return this.policy.allows(principal, entry.access);
  }

  /** Whether every caller may see `entry` (the policy says so; a policy that cannot tell: no). */
  allowsEveryone(entry: RegisteredHandler): boolean {
    return this.policy.allowsEveryone?.(entry.access) ?? false;
  }

  /**
   * The entries `principal` may see, and the key of its view (for cached list pages). With
   * governance, `caller` and `kind` given, the entries its policies hide from the caller are left
   * out too (the policies that do not read the arguments: list ⇔ callable).
   */
  view<T extends RegisteredHandler>(
    principal: McpPrincipal,
    governed?: { kind: McpCallKind; caller: ListCaller },
  ): ListView<T> {
    const key = this.policy.visibilityKey(principal);
    if (governed && this.governance?.filtersLists) {
      const filter = this.governance.listFilter(governed.kind, governed.caller);
      return {
        key: `${key}|${filter.key}`,
        visible: (entry) => this.policy.allows(principal, entry.access) && filter.visible(entry),
      };
    }
    return { key, visible: (entry) => this.policy.allows(principal, entry.access) };
  }

  /**
   * Applies the policy's rule on the call itself, if it has one.
   * @throws JsonRpcError `-32602` "not allowed" when it refuses
   */
  async authorizeCall(
    principal: McpPrincipal,
    kind: McpCallKind,
    name: string,
    args: unknown,
    entry: RegisteredHandler,
  ): Promise<void> {
    if (!this.policy.authorizeCall) return;
    const callArgs = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
    if (!(await this.policy.authorizeCall(principal, { kind, name, args: callArgs, requirements: entry.access }))) {
      throw new AccessDeniedError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `Not allowed: ${principal.id} may not use ${kind} "${name}" with these arguments`,
      );
    }
  }

  /** `entry` if `principal` may use it, else `undefined` (as if it did not exist). */
  visible<T extends RegisteredHandler>(principal: McpPrincipal, entry: T | undefined): T | undefined {
    return entry && this.policy.allows(principal, entry.access) ? entry : undefined;
  }
}
