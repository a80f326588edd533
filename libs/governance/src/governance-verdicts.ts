import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind, McpPrincipal, McpTransportKind } from '#libs/core';
import type { AuditGovernance, GuardrailFinding } from '#libs/security';
import type { McpPolicyDefinition } from './policies/mcp-policy.interface';
import type { PolicyRefusal } from './policies/policy-set';

/** A call of a catalog entry, as governance sees it. */
export interface GovernedCall {
  readonly principal: McpPrincipal;
  readonly client: { name: string; version: string } | undefined;
  readonly transport: McpTransportKind;
  readonly kind: McpCallKind;
  readonly entry: RegisteredHandler;
  readonly args: unknown;
}

/** A policy as the admin API reads it: its definition as given, and whether it reads the arguments or the result. */
export type PolicyReading = McpPolicyDefinition & { readonly perCall: boolean };

/** What governance decided about a call before it runs. */
export type CallVerdict =
  /** It goes on, with these arguments (redacted by a guardrail, or as sent). */
  | {
      readonly kind: 'allowed';
      readonly args: unknown;
      readonly audit: AuditGovernance | undefined;
      /** The arguments as the audit record may keep them: every finding replaced (absent: nothing found). */
      readonly recorded?: unknown;
    }
  /** A policy that does not read the arguments refused: answered as for an entry that does not exist. */
  | { readonly kind: 'hidden'; readonly audit: AuditGovernance }
  /** A policy on the arguments, or a guardrail, refused. */
  | {
      readonly kind: 'refused';
      readonly message: string;
      readonly audit: AuditGovernance;
      readonly recorded?: unknown;
    };

/** What governance made of a result. */
export type ResultVerdict =
  | {
      readonly kind: 'passed';
      readonly result: unknown;
      /** Dry-run refusals of result policies. */
      readonly refused: readonly PolicyRefusal[] | undefined;
      readonly findings: readonly GuardrailFinding[] | undefined;
    }
  | {
      readonly kind: 'withheld';
      readonly message: string;
      readonly refused: readonly PolicyRefusal[] | undefined;
      readonly findings: readonly GuardrailFinding[] | undefined;
    };

/** The caller facts a list is filtered by. */
export interface ListCaller {
  readonly principal: McpPrincipal;
  readonly client: { name: string; version: string } | undefined;
  readonly transport: McpTransportKind;
}
