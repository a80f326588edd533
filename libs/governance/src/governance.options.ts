import { Inject } from '@nestjs/common';
import type { McpDiagnostic, OptionReport } from '#libs/core';
import type { McpGuardrailOptions } from './guardrails/mcp-detector.interface';
import type { McpPolicyDefinition } from './policies/mcp-policy.interface';
import type { CompiledGuardrails } from './guardrails/guardrail-compiler';
import type { McpPinningOptions, PinningOptions } from './pins/pin.options';

// The compilers, required only when there is something to compile: a host without the
// `governance` option loads none of governance's code for its options' sake.
/* eslint-disable @typescript-eslint/no-require-imports */
const compilers = () => ({
  ...(require('./policies/policy-compiler') as typeof import('./policies/policy-compiler')),
  ...(require('./guardrails/guardrail-compiler') as typeof import('./guardrails/guardrail-compiler')),
  ...(require('./pins/pin.options') as typeof import('./pins/pin.options')),
});
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The `governance` option of `McpModule`: declarative policies on arguments and results, and
 * guardrails on what goes in and out, for every kind of entry (the app's tools, its REST routes,
 * `rest.apis` operations and upstream servers' tools alike), decided in the one admission.
 * @example
 * ```ts
 * governance: {
 *   policies: [{ id: 'same-tenant', appliesTo: { names: ['get_ticket'] },
 *     condition: '!has(principal.claims.tenant) || args.tenant == principal.claims.tenant' }],
 *   guardrails: { rules: [{ detectors: ['api-key', 'private-key'], action: 'block' }] },
 * }
 * ```
 */
export interface McpGovernanceOptions {
  /** Policies of the host (beside those declared with `@McpPolicy` on providers). Replaceable through the admin API. */
  policies?: McpPolicyDefinition[];
  guardrails?: McpGuardrailOptions;
  /** Records what every policy would refuse, refusing nothing (guardrails still apply). @default false */
  dryRun?: boolean;
  /** Pinned catalogs: the defaults of upstreams and APIs declared with `pin`, and where the pins are kept. */
  pinning?: McpPinningOptions;
}

/** `McpGovernanceOptions` validated; `undefined` when governance is off (nothing of it is loaded then). */
export interface GovernanceOptions {
  readonly policies: readonly McpPolicyDefinition[];
  readonly guardrails: CompiledGuardrails | undefined;
  readonly dryRun: boolean;
  readonly pinning: PinningOptions;
}

/** Token of the resolved `GovernanceOptions | undefined`. */
export const MCP_GOVERNANCE_OPTIONS = Symbol('MCP:GOVERNANCE_OPTIONS');

/** Injects the `GovernanceOptions` (`undefined` when off). */
export const InjectGovernanceOptions = (): ParameterDecorator => Inject(MCP_GOVERNANCE_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const GOVERNANCE_OPTION_KEYS = ['governance'] as const;

const KEYS = new Set(['policies', 'guardrails', 'dryRun', 'pinning']);

/**
 * Validates `governance`: every policy compiled, every problem reported with its place.
 * @param pinned whether an upstream or API is declared with `pin` (which turns governance on)
 */
export function resolveGovernanceOptions(
  o: Record<string, unknown>,
  report: OptionReport,
  pinned = false,
): GovernanceOptions | undefined {
  const given = o.governance === undefined && pinned ? {} : o.governance;
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('governance', 'must be an object', "e.g. governance: { policies: [{ id: 'x', condition: 'true' }] }");
    return undefined;
  }
  const g = given as Record<string, unknown>;
  for (const key of Object.keys(g))
    if (!KEYS.has(key)) report(`governance.${key}`, 'is not a known option', `known: ${[...KEYS].join(', ')}`);
  if (g.dryRun !== undefined && typeof g.dryRun !== 'boolean')
    report('governance.dryRun', 'must be a boolean', 'dryRun: true');
  const dryRun = g.dryRun === true;
  const forward = (diagnostics: McpDiagnostic[]) => {
    for (const { where, problem, fix } of diagnostics) report(where, problem, fix);
  };
  let policies: McpPolicyDefinition[] = [];
  if (g.policies !== undefined) {
    if (!Array.isArray(g.policies)) report('governance.policies', 'must be a list', 'policies: [{ id, condition }]');
    else {
      policies = g.policies as McpPolicyDefinition[];
      forward(policyDiagnostics(policies, dryRun));
    }
  }
  const guardrails =
    g.guardrails === undefined ? undefined : compilers().compileGuardrails(g.guardrails, 'governance.guardrails');
  if (guardrails) forward(guardrails.diagnostics);
  const pinning = compilers().resolvePinningOptions(g.pinning, 'governance.pinning', report);
  return { policies, guardrails: guardrails?.compiled, dryRun, pinning };
}

/** The problems of a list of module-level policies (start-up, and the admin API before a replacement). */
export function policyDiagnostics(policies: readonly unknown[], dryRun = false): McpDiagnostic[] {
  return compilers().compilePolicies(
    policies.map((definition, index) => ({ definition, where: `governance.policies[${index}]` })),
    dryRun,
  ).diagnostics;
}
