import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCallKind, type McpPrincipal } from '#libs/core';
import { InjectGovernance, type McpGovernance, type ListCaller } from '#libs/governance';
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
  /** The extensions whose clients call tools by their own server's names. */
  private readonly ownNaming: readonly ProtocolExtension[];

  constructor(
    @InjectAccessPolicy() private readonly policy: McpAccessPolicy,
    @InjectProtocolExtensions() extensions: readonly ProtocolExtension[] | undefined = [],
    @Optional() @InjectGovernance() private readonly governance?: McpGovernance,
  ) {
    this.restricting = extensions.filter((extension) => extension.requires);
    this.ownNaming = extensions.filter((extension) => extension.callsByOwnName);
  }

  /**
   * Of the tools served under another name than their own server's (`candidates`, all of one own
   * name), those `client` may mean by that name — it declared an extension whose clients call
   * tools so (an MCP Apps view of an upstream behind a prefix) — and `principal` may see, as its
   * own list would show them (with governance, `governed` given, its list filter too): one is the
   * tool meant, several are ambiguous, none is an unknown tool.
   */
  meantByOwnName<T extends RegisteredHandler>(
    principal: McpPrincipal,
    candidates: readonly T[],
    client: ExtensionClient,
    governed?: { kind: McpCallKind; caller: ListCaller },
  ): readonly T[] {
    if (candidates.length === 0 || !this.ownNaming.some((extension) => declares(client, extension))) return [];
    return candidates.filter(this.view<T>(principal, client, governed).visible);
  }

  /** Whether `principal` may use `entry`, and (given its client) whether the entry is for that client. */
  allows(principal: McpPrincipal, entry: RegisteredHandler, client?: ExtensionClient): boolean {
    return (
      this.policy.allows(principal, entry.access) &&
      (!principal.server || principal.server.selects(entry, principal)) &&
      (!client || this.forClient(entry, client))
    );
  }

  /**
   * How a call of `entry` by `client` reached the host when only an extension can make it
   * (`view`), for its audit record: only a client that declared the extension can have made it so
   * (the model's `call_tool` relays as a client of none).
   */
  originOf(entry: RegisteredHandler, client: ExtensionClient): string | undefined {
    for (const extension of this.restricting) {
      if (!declares(client, extension)) continue;
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
   * The entries `principal` may see, and the key of its view (for cached list pages). Given its
   * client, only those for that client; with governance, `governed` given, without the entries
   * its policies hide from the caller (the policies that do not read the arguments: list ⇔
   * callable).
   */
  view<T extends RegisteredHandler>(
    principal: McpPrincipal,
    client?: ExtensionClient,
    governed?: { kind: McpCallKind; caller: ListCaller },
  ): ListView<T> {
    let key = this.policy.visibilityKey(principal);
    let visible = (entry: RegisteredHandler) => this.policy.allows(principal, entry.access);
    const server = principal.server;
    if (server) {
      // A composed virtual server's path: only what it selects (docs/virtual-servers.md).
      const allowed = visible;
      key = `${key}|server:${server.key}`;
      visible = (entry) => allowed(entry) && server.selects(entry, principal);
    }
    const missing = client ? this.restricting.filter((extension) => !declares(client, extension)) : [];
    if (missing.length > 0) {
      const allowed = visible;
      key = `${key}|without:${missing.map((extension) => extension.id).join(',')}`;
      visible = (entry) => allowed(entry) && missing.every((extension) => !extension.requires!(entry));
    }
    if (governed && this.governance?.filtersLists) {
      const filter = this.governance.listFilter(governed.kind, governed.caller);
      const allowed = visible;
      key = `${key}|${filter.key}`;
      visible = (entry) => allowed(entry) && filter.visible(entry);
    }
    return { key, visible };
  }

  /** Whether the policy decides on each call's arguments (`authorizeCall`): a call is then awaited on it. */
  get authorizesCalls(): boolean {
    return this.policy.authorizeCall !== undefined;
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
