import type { CelResult } from '@bufbuild/cel';
import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind } from '#libs/core';
import type { McpPolicyDefinition, McpPolicyStage } from './mcp-policy.interface';
import type { FastCondition } from './fast-condition';

/** The variables a condition may read. */
export const POLICY_VARIABLES = ['principal', 'client', 'transport', 'entry', 'args', 'result'] as const;
export type PolicyVariable = (typeof POLICY_VARIABLES)[number];

/** A policy ready to decide: its condition planned once, and what it reads. */
export interface CompiledPolicy {
  readonly id: string;
  /** Where it was declared, for messages (`governance.policies[2]`, `TicketTools.createTicket @McpPolicy[0]`). */
  readonly where: string;
  readonly definition: McpPolicyDefinition;
  readonly stage: McpPolicyStage;
  readonly reason: string;
  readonly dryRun: boolean;
  /** Reads `args` or `result`: it cannot say beforehand whether a caller may use the entry. */
  readonly perCall: boolean;
  readonly reads: ReadonlySet<PolicyVariable>;
  /** Whether it governs this entry (its `appliesTo`, or the handler it was declared on). */
  applies(kind: McpCallKind, entry: RegisteredHandler): boolean;
  evaluate(bindings: Record<string, unknown>): CelResult;
  /**
   * The condition in plain JavaScript over plain bindings, when its shape allows: `true` exactly
   * when `evaluate` would say `true` (then CEL is skipped), else CEL decides.
   */
  readonly fast?: FastCondition;
}
