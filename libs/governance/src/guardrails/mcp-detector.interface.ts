/**
 * A detector of something that must not pass unnoticed in arguments or results: a pattern, and
 * optionally a check of each match (a checksum) that tells a real one from a look-alike.
 * @example
 * ```ts
 * { id: 'employee-id', pattern: /\bEMP-\d{6}\b/ }
 * ```
 */
export interface McpDetector {
  /** Named in rules, audit records and metrics (`email`, `employee-id`). */
  readonly id: string;
  /** Searched in every string (the `g` flag is added). */
  readonly pattern: RegExp;
  /** Keeps a match only when it returns true (e.g. a checksum). */
  readonly validate?: (match: string) => boolean;
  /**
   * What `redact` puts in place of a match. It should still fit what the schemas say of the value
   * (a client checks `structuredContent` against the tool's output schema).
   * @default `[REDACTED:<id>]`
   */
  readonly replacement?: string;
}

/** What a rule does with what its detectors find. */
export type McpGuardrailAction = 'block' | 'redact' | 'flag';

/**
 * A guardrail rule: which detectors, on what (arguments, results or both), and what is done —
 * `block` refuses the call (arguments) or withholds the result, `redact` replaces each finding
 * with the detector's replacement, `flag` lets it through; each finding (kind and place, never the
 * value) goes to the call's audit record and to the metrics.
 * @example
 * ```ts
 * // Customers' e-mail addresses leave only for callers holding the `customers:pii` scope.
 * { detectors: ['email'], on: 'result', action: 'redact', unless: "'customers:pii' in principal.scopes" }
 * ```
 */
export interface McpGuardrailRule {
  /** The built-in (`email`, `phone`, `iban`, `card`, `api-key`, `private-key`, `instructions`) or the host's own detectors. */
  readonly detectors: readonly string[];
  /** @default 'both' */
  readonly on?: 'arguments' | 'result' | 'both';
  readonly action: McpGuardrailAction;
  /** The entries it applies to, as a policy's `appliesTo`. @default every entry */
  readonly appliesTo?: import('../policies/mcp-policy.interface').McpPolicyScope;
  /** A CEL condition over `principal`, `client`, `transport` and `entry`: when true, the rule does not apply. */
  readonly unless?: string;
}

/** The `governance.guardrails` option. */
export interface McpGuardrailOptions {
  readonly rules: readonly McpGuardrailRule[];
  /** Detectors of the host's own, beside the built-in ones. */
  readonly detectors?: readonly McpDetector[];
}
