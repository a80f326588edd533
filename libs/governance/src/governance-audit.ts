import type { AuditGovernance, GuardrailFinding } from '#libs/security';
import type { McpGuardrailAction } from './guardrails/mcp-detector.interface';
import type { PolicyRefusal } from './policies/policy-set';

/**
 * A call's governance as its audit record keeps it: the policies of `allowed` that did not refuse,
 * the refusals (dry-run ones included), what the guardrails found.
 */
export function governanceOf(
  allowed: readonly string[],
  refused: readonly PolicyRefusal[] | undefined,
  findings: readonly GuardrailFinding[] | undefined,
): AuditGovernance {
  const held = refused ? allowed.filter((id) => !refused.some((refusal) => refusal.policy === id)) : allowed;
  return {
    ...(held.length > 0 && { allowed: held }),
    ...(refused && { refused }),
    ...(findings && { findings }),
  };
}

/** `an e-mail address at $.note` — kinds and places, never values. */
export function describeFindings(findings: readonly GuardrailFinding[], action: McpGuardrailAction): string {
  return findings
    .filter((finding) => finding.action === action)
    .map((finding) => `${finding.detector} at ${finding.path}`)
    .join(', ');
}
