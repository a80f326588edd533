import { Inject } from '@nestjs/common';
import type { McpPolicyDefinition } from '../policies/mcp-policy.interface';

/** A replacement of the host's policies (`governance.policies`) made through the admin API. */
export interface PolicyReplacement {
  readonly policies: readonly McpPolicyDefinition[];
  /** Increases with each replacement (the newest wins on every replica). */
  readonly version: number;
  /** Who made it. */
  readonly by: string;
  /** When (ISO-8601). */
  readonly at: string;
}

/**
 * Where replacements of the policies are kept and how every replica hears of them. In process by
 * default; with the `cluster` option, on the backplane (a replica started later loads the newest,
 * and each replacement is broadcast). Fail-closed contract: a replacement that cannot be stored is
 * refused (the caller is told), never applied on one replica only.
 */
export interface GovernancePolicyStore {
  /** The newest replacement, if one was made. */
  current(): Promise<PolicyReplacement | undefined>;
  /** Keeps `replacement` and tells every replica (this one included). @throws when it cannot be kept */
  replace(replacement: PolicyReplacement): Promise<void>;
  /** Calls `listener` with each replacement made on any replica; returns how to stop. */
  onReplaced(listener: (replacement: PolicyReplacement) => void): () => void;
}

/** Token of the `GovernancePolicyStore` in use. */
export const MCP_POLICY_STORE = Symbol('MCP:POLICY_STORE');

/** Injects the `GovernancePolicyStore`. */
export const InjectPolicyStore = (): ParameterDecorator => Inject(MCP_POLICY_STORE);

/** One replica: the replacement kept in memory. */
export class InProcessPolicyStore implements GovernancePolicyStore {
  private newest: PolicyReplacement | undefined;
  private readonly listeners = new Set<(replacement: PolicyReplacement) => void>();

  current(): Promise<PolicyReplacement | undefined> {
    return Promise.resolve(this.newest);
  }

  replace(replacement: PolicyReplacement): Promise<void> {
    this.newest = replacement;
    for (const listener of this.listeners) listener(replacement);
    return Promise.resolve();
  }

  onReplaced(listener: (replacement: PolicyReplacement) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
