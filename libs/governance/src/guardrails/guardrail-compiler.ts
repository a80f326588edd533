import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind, McpDiagnostic } from '#libs/core';
import type { CompiledPolicy } from '../policies/compiled-policy';
import { compilePolicies } from '../policies/policy-compiler';
import type { McpPolicyScope } from '../policies/mcp-policy.interface';
import { BUILTIN_DETECTORS } from './builtin-detectors';
import type { McpDetector, McpGuardrailAction } from './mcp-detector.interface';

/** A guardrail rule ready to apply. */
export interface CompiledRule {
  readonly index: number;
  readonly arguments: boolean;
  readonly result: boolean;
  readonly action: McpGuardrailAction;
  readonly detectors: readonly McpDetector[];
  /** Its `unless`, as a policy whose condition exempts the caller; its `appliesTo` goes through it too. */
  readonly scope: CompiledPolicy;
  readonly exempts: boolean;
}

export interface CompiledGuardrails {
  readonly rules: readonly CompiledRule[];
}

const RULE_KEYS = new Set(['detectors', 'on', 'action', 'appliesTo', 'unless']);
const ACTIONS = new Set(['block', 'redact', 'flag']);
const ON = new Set(['arguments', 'result', 'both']);
const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Validates and compiles `governance.guardrails`: every problem at once, each with its place. */
export function compileGuardrails(
  given: unknown,
  where: string,
): { compiled: CompiledGuardrails | undefined; diagnostics: McpDiagnostic[] } {
  const diagnostics: McpDiagnostic[] = [];
  const report = (at: string, problem: string, fix: string) => diagnostics.push({ where: at, problem, fix });
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report(where, 'must be an object', "e.g. guardrails: { rules: [{ detectors: ['email'], action: 'redact' }] }");
    return { compiled: undefined, diagnostics };
  }
  const g = given as Record<string, unknown>;
  for (const key of Object.keys(g))
    if (key !== 'rules' && key !== 'detectors')
      report(`${where}.${key}`, 'is not a known option', 'known: rules, detectors');
  const detectors = new Map(BUILTIN_DETECTORS.map((detector) => [detector.id, detector]));
  if (g.detectors !== undefined) {
    if (!Array.isArray(g.detectors))
      report(`${where}.detectors`, 'must be a list', 'detectors: [{ id, pattern: /…/ }]');
    else
      g.detectors.forEach((detector: unknown, index) => {
        const d = detector as Partial<McpDetector> | null;
        const at = `${where}.detectors[${index}]`;
        if (!d || typeof d.id !== 'string' || !ID.test(d.id))
          return report(at, '"id" must be letters, digits, "_", "-", ".", ":"', "e.g. id: 'employee-id'");
        if (!(d.pattern instanceof RegExp))
          return report(at, '"pattern" must be a RegExp', 'e.g. pattern: /\\bEMP-\\d{6}\\b/');
        if (d.validate !== undefined && typeof d.validate !== 'function')
          return report(at, '"validate" must be a function', 'validate: (match) => checksumHolds(match)');
        if (detectors.has(d.id) && !BUILTIN_DETECTORS.some((b) => b.id === d.id))
          return report(at, `detector "${d.id}" is declared twice`, 'give each detector an id of its own');
        detectors.set(d.id, d as McpDetector);
      });
  }
  const rules: CompiledRule[] = [];
  if (!Array.isArray(g.rules)) {
    report(`${where}.rules`, 'must be a list', "rules: [{ detectors: ['email'], action: 'redact' }]");
    return { compiled: undefined, diagnostics };
  }
  g.rules.forEach((rule: unknown, index) => {
    const at = `${where}.rules[${index}]`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule))
      return report(at, 'must be an object', "{ detectors: ['email'], action: 'redact' }");
    const r = rule as Record<string, unknown>;
    const before = diagnostics.length;
    for (const key of Object.keys(r))
      if (!RULE_KEYS.has(key)) report(at, `has an unknown field "${key}"`, `known: ${[...RULE_KEYS].join(', ')}`);
    if (!ACTIONS.has(r.action as string))
      report(at, '"action" must be "block", "redact" or "flag"', "action: 'redact'");
    if (r.on !== undefined && !ON.has(r.on as string))
      report(at, '"on" must be "arguments", "result" or "both"', "on: 'result'");
    const ids = Array.isArray(r.detectors) ? (r.detectors as unknown[]) : undefined;
    if (!ids || ids.length === 0) report(at, '"detectors" must be a non-empty list', "detectors: ['email', 'phone']");
    const unknown = (ids ?? []).filter((id) => typeof id !== 'string' || !detectors.has(id));
    if (unknown.length > 0)
      report(at, `unknown detectors: ${unknown.map(String).join(', ')}`, `use ${[...detectors.keys()].join(', ')}`);
    // `unless` and `appliesTo` are a policy's: compiled as one, so that they mean the same.
    const { policies, diagnostics: problems } = compilePolicies(
      [
        {
          definition: {
            id: `guardrail-${index}`,
            condition: r.unless === undefined ? 'false' : r.unless,
            ...(r.appliesTo !== undefined && { appliesTo: r.appliesTo as McpPolicyScope }),
          },
          where: at,
        },
      ],
      false,
    );
    diagnostics.push(...problems.map((problem) => ({ ...problem, problem: `unless/appliesTo: ${problem.problem}` })));
    if (policies[0]?.perCall)
      report(
        at,
        '"unless" reads args or result',
        'an exemption depends only on principal, client, transport and entry',
      );
    if (diagnostics.length > before || !policies[0]) return;
    const on = (r.on as string | undefined) ?? 'both';
    rules.push({
      index,
      arguments: on !== 'result',
      result: on !== 'arguments',
      action: r.action as McpGuardrailAction,
      detectors: (ids as string[]).map((id) => detectors.get(id)!),
      scope: policies[0],
      exempts: r.unless !== undefined,
    });
  });
  return { compiled: { rules }, diagnostics };
}

/** The rules that apply to `entry` at one stage. */
export function rulesOf(
  rules: readonly CompiledRule[],
  stage: 'arguments' | 'result',
  kind: McpCallKind,
  entry: RegisteredHandler,
): CompiledRule[] {
  return rules.filter((rule) => rule[stage] && rule.scope.applies(kind, entry));
}
