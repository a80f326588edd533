import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind } from '#libs/core';
import { GovernanceMessages } from '../messages/governance.messages';
import { celEngine } from './cel-engine';
import type { CompiledPolicy } from './compiled-policy';
import type { PlainBindings } from './fast-condition';

/** A policy that refused (or, in dry-run mode, would have). */
export interface PolicyRefusal {
  readonly policy: string;
  readonly reason: string;
  readonly dryRun?: true;
}

/** The policies that govern one entry, split by when they decide. */
export interface EntryPolicies {
  /** Call policies that do not read the arguments: they decide whether the caller may use the entry at all (lists too). */
  readonly gate: readonly CompiledPolicy[];
  /** Call policies that read the arguments. */
  readonly call: readonly CompiledPolicy[];
  readonly result: readonly CompiledPolicy[];
  /** Ids of the gate and call policies, as a call's audit record lists them when they held. */
  readonly callIds: readonly string[];
  /** Ids of the gate policies alone (a call whose arguments were never decided on: refused by a guardrail, or invalid). */
  readonly gateIds: readonly string[];
  /** What a call's audit record says when every one of them held (made once). */
  readonly allowedAudit: { readonly allowed: readonly string[] } | undefined;
}

/** Callers whose decisions are kept at once (each a few bytes per entry it used). */
const MAX_CALLERS = 10_000;

const NONE: EntryPolicies = Object.freeze({
  gate: [],
  call: [],
  result: [],
  callIds: [],
  gateIds: [],
  allowedAudit: undefined,
});

/**
 * The host's policies, compiled: which govern each entry (worked out once per entry and kept
 * until the policies are replaced), and the decision of a list of them over a call's bindings.
 */
export class PolicySet {
  private readonly byEntry = new WeakMap<RegisteredHandler, EntryPolicies>();
  /**
   * The decisions of the argument-independent policies, per caller and entry: they depend on
   * nothing else, and go with the set when the policies are replaced. Bounded: past
   * `MAX_CALLERS` callers, it starts again.
   */
  private readonly gateDecisions = new Map<string, WeakMap<RegisteredHandler, readonly PolicyRefusal[] | null>>();
  /** Whether any policy decides who may see an entry (lists are then filtered per caller). */
  readonly gates: boolean;

  constructor(readonly policies: readonly CompiledPolicy[]) {
    this.gates = policies.some((policy) => policy.stage === 'call' && !policy.perCall);
  }

  /** The decision for `callerKey` on `entry`, made by `decideNow` the first time it is asked. */
  gateDecision(
    callerKey: string,
    entry: RegisteredHandler,
    decideNow: () => PolicyRefusal[] | undefined,
  ): readonly PolicyRefusal[] | undefined {
    let decisions = this.gateDecisions.get(callerKey);
    if (!decisions) {
      if (this.gateDecisions.size >= MAX_CALLERS) this.gateDecisions.clear();
      decisions = new WeakMap();
      this.gateDecisions.set(callerKey, decisions);
    }
    let decision = decisions.get(entry);
    if (decision === undefined) {
      decision = decideNow() ?? null;
      decisions.set(entry, decision);
    }
    return decision ?? undefined;
  }

  get size(): number {
    return this.policies.length;
  }

  /** The policies governing `entry` (an entry has one kind: the first asked is kept). */
  of(kind: McpCallKind, entry: RegisteredHandler): EntryPolicies {
    let found = this.byEntry.get(entry);
    if (!found) {
      const applying = this.policies.filter((policy) => policy.applies(kind, entry));
      const callIds = applying.filter((policy) => policy.stage === 'call').map((policy) => policy.id);
      const gate = applying.filter((policy) => policy.stage === 'call' && !policy.perCall);
      found =
        applying.length === 0
          ? NONE
          : {
              gate,
              gateIds: gate.map((policy) => policy.id),
              call: applying.filter((policy) => policy.stage === 'call' && policy.perCall),
              result: applying.filter((policy) => policy.stage === 'result'),
              callIds,
              allowedAudit: callIds.length > 0 ? Object.freeze({ allowed: callIds }) : undefined,
            };
      this.byEntry.set(entry, found);
    }
    return found;
  }
}

/**
 * Evaluates `policies` over `bindings`: the first enforcing refusal ends it; dry-run refusals are
 * collected and the evaluation goes on. A condition that is not `true` refuses — one that cannot
 * be evaluated (a missing field, a value of another type) included: policies fail closed.
 * @returns the refusals (the last one enforcing, if any), or `undefined` when every policy held
 */
export function decide(
  policies: readonly CompiledPolicy[],
  bindings: Record<string, unknown> | (() => Record<string, unknown>),
  plain?: PlainBindings,
): PolicyRefusal[] | undefined {
  let refusals: PolicyRefusal[] | undefined;
  for (const policy of policies) {
    // Plain JavaScript says true exactly when CEL would: nothing to convert, nothing to interpret.
    if (plain && policy.fast?.(plain) === true) continue;
    if (typeof bindings === 'function') bindings = bindings();
    const value = policy.evaluate(bindings);
    if (value === true) continue;
    const reason = celEngine().isCelError(value)
      ? `${policy.reason}: ${GovernanceMessages.unevaluable(value.message)}`
      : policy.reason;
    (refusals ??= []).push(policy.dryRun ? { policy: policy.id, reason, dryRun: true } : { policy: policy.id, reason });
    if (!policy.dryRun) break;
  }
  return refusals;
}

/** The enforcing refusal among `refusals`, if any (always the last: `decide` stops at it). */
export function enforced(refusals: readonly PolicyRefusal[] | undefined): PolicyRefusal | undefined {
  const last = refusals?.at(-1);
  return last && !last.dryRun ? last : undefined;
}
