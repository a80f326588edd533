import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCallKind, type McpPrincipal } from '#libs/core';
import type { ListView, RegisteredHandler } from '#libs/catalog';
import { InjectAccessPolicy, type McpAccessPolicy } from '#libs/security';
import {
  declares,
  InjectProtocolExtensions,
  type ExtensionClient,
  type ProtocolExtension,
} from '../eras/protocol-extension';

/**
 * A refusal by the access policy. The client sees the same error as for an entry that does not
 * exist (or a plain "not allowed"); the audit trail records it as `denied`.
 */
export class AccessDeniedError extends JsonRpcError {}

/**
 * Applies the access policy to the catalog: what a caller may not use is neither listed nor
 * found, so lists and calls always agree and a hidden entry's existence is never revealed. Given
 * the client, it also keeps out what only clients of an extension can use (an app-only tool from
 * a client that renders no views): the audience is part of what lists and calls agree on.
 */
@Injectable()
export class AccessControl {
  /** The extensions that keep some entries to their own clients. */
  private readonly restricting: readonly ProtocolExtension[];

  constructor(
    @InjectAccessPolicy() private readonly policy: McpAccessPolicy,
    @InjectProtocolExtensions() extensions: readonly ProtocolExtension[] | undefined = [],
  ) {
    this.restricting = extensions.filter((extension) => extension.requires);
  }

  /** Whether `principal` may use `entry`, and (given its client) whether the entry is for that client. */
  allows(principal: McpPrincipal, entry: RegisteredHandler, client?: ExtensionClient): boolean {
    return this.policy.allows(principal, entry.access) && (!client || this.forClient(entry, client));
  }

  /** How a call of `entry` reached the host when only an extension can make it (`view`), for its audit record. */
  originOf(entry: RegisteredHandler): string | undefined {
    for (const extension of this.restricting) {
      const origin = extension.originOf?.(entry);
      if (origin !== undefined) return origin;
    }
    return undefined;
  }

  private forClient(entry: RegisteredHandler, client: ExtensionClient): boolean {
    return this.restricting.every((extension) => !extension.requires!(entry) || declares(client, extension));
  }

  /** Whether every caller may see `entry` (the policy says so; a policy that cannot tell: no). */
  allowsEveryone(entry: RegisteredHandler): boolean {
    return this.policy.allowsEveryone?.(entry.access) ?? false;
  }

  /**
   * The entries `principal` may see (those for its client, given the client), and the key of its
   * view (for cached list pages).
   */
  view<T extends RegisteredHandler>(principal: McpPrincipal, client?: ExtensionClient): ListView<T> {
    const key = this.policy.visibilityKey(principal);
    const missing = client ? this.restricting.filter((extension) => !declares(client, extension)) : [];
    if (missing.length === 0) return { key, visible: (entry) => this.policy.allows(principal, entry.access) };
    return {
      key: `${key}|without:${missing.map((extension) => extension.id).join(',')}`,
      visible: (entry) =>
        this.policy.allows(principal, entry.access) && missing.every((extension) => !extension.requires!(entry)),
    };
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

  /** `entry` if `principal` (and its client, given) may use it, else `undefined` (as if it did not exist). */
  visible<T extends RegisteredHandler>(
    principal: McpPrincipal,
    entry: T | undefined,
    client?: ExtensionClient,
  ): T | undefined {
    return entry && this.allows(principal, entry, client) ? entry : undefined;
  }
}
