import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import type { ListView, RegisteredHandler } from '#libs/catalog';
import { InjectAccessPolicy, type McpAccessPolicy } from '#libs/security';

/**
 * Applies the access policy to the catalog: what a caller may not use is neither listed nor
 * found, so lists and calls always agree and a hidden entry's existence is never revealed.
 */
@Injectable()
export class AccessControl {
  constructor(@InjectAccessPolicy() private readonly policy: McpAccessPolicy) {}

  allows(principal: McpPrincipal, entry: RegisteredHandler): boolean {
    return this.policy.allows(principal, entry.access);
  }

  /** The entries `principal` may see, and the key of its view (for cached list pages). */
  view<T extends RegisteredHandler>(principal: McpPrincipal): ListView<T> {
    return { key: this.policy.visibilityKey(principal), visible: (entry) => this.policy.allows(principal, entry.access) };
  }

  /** `entry` if `principal` may use it, else `undefined` (as if it did not exist). */
  visible<T extends RegisteredHandler>(principal: McpPrincipal, entry: T | undefined): T | undefined {
    return entry && this.policy.allows(principal, entry.access) ? entry : undefined;
  }
}
