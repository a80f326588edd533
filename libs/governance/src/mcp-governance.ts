import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { PromptRegistry, ResourceRegistry, ToolRegistry, type RegisteredHandler } from '#libs/catalog';
import { McpStartupError, type McpCallKind, type McpDiagnostic, type McpPrincipal } from '#libs/core';
import { AuditTrail } from '#libs/security';
import { GovernanceMessages } from './messages/governance.messages';
import { InjectGovernanceOptions, type GovernanceOptions } from './governance.options';
import { rulesOf, type CompiledRule } from './guardrails/guardrail-compiler';
import { scanValue, type ArmedDetector } from './guardrails/guardrail-scanner';
import { armed, planOf, type ArmedPlan } from './guardrails/armed-plan';
import { describeFindings, governanceOf } from './governance-audit';
import type { CallVerdict, GovernedCall, ListCaller, PolicyReading, ResultVerdict } from './governance-verdicts';
import type { CompiledPolicy } from './policies/compiled-policy';
import { declaredPolicies } from './policies/declared-policies';
import type { McpPolicyDefinition } from './policies/mcp-policy.interface';
import {
  celValueOf,
  clientValue,
  entryValue,
  plainClient,
  plainEntry,
  plainPrincipal,
  principalValue,
} from './policies/policy-bindings';
import { compilePolicies } from './policies/policy-compiler';
import { decide, enforced, PolicySet, type PolicyRefusal } from './policies/policy-set';
import { InjectPolicyStore, type GovernancePolicyStore, type PolicyReplacement } from './store/policy-store';
import { CatalogPins } from './pins/catalog-pins';

/** The policy id a quarantined definition's refusal is audited under. */
export const PIN_POLICY_ID = 'catalog-pin';

/**
 * Governance in the admission: the host's policies (module options, `@McpPolicy` on providers,
 * replacements through the admin API) and guardrails, decided for every kind of entry alike.
 * The engine asks it three things: which entries a caller may see (`listFilter`), whether a call
 * may run and with what arguments (`admitCall`), and what of a result may leave (`screenResult`).
 * Each answer carries what goes to the call's audit record (policy ids and reasons, findings).
 */
@Injectable()
export class McpGovernance implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('McpGovernance');
  private set: PolicySet;
  private declared: CompiledPolicy[] = [];
  private version = 0;
  private stopListening: (() => void) | undefined;
  private readonly stopPins: (() => void) | undefined;
  private readonly rules: readonly CompiledRule[];
  /** Armed detectors per entry and stage, for rules without `unless` (the common case: no work per call). */
  private readonly armed = new WeakMap<RegisteredHandler, Record<'arguments' | 'result', ArmedPlan>>();
  private readonly viewKeys = new WeakMap<McpPrincipal, string>();
  /** The bindings of the argument-reading conditions, reused call after call (no allocation per call). */
  private readonly scratch: Record<string, unknown> = {
    principal: undefined,
    client: undefined,
    transport: undefined,
    entry: undefined,
    args: undefined,
  };
  /** The same bindings as plain values, for the conditions compiled to JavaScript (`fast-condition.ts`). */
  private readonly plain: Record<string, unknown> = {
    principal: undefined,
    client: undefined,
    transport: undefined,
    entry: undefined,
    args: undefined,
  };

  constructor(
    @InjectGovernanceOptions() private readonly options: GovernanceOptions,
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    @InjectPolicyStore() private readonly store: GovernancePolicyStore,
    @Optional() private readonly pins?: CatalogPins,
    @Optional() private readonly trail?: AuditTrail,
    @Optional() private readonly modules?: ModulesContainer,
  ) {
    this.set = new PolicySet(this.compileModule(options.policies).policies);
    this.rules = options.guardrails?.rules ?? [];
    // A definition quarantined or released: its list's clients hear `list_changed` (list ⇔ callable).
    this.stopPins = pins?.onChange((flipped) => {
      for (const { kind, key } of flipped)
        (kind === 'tool'
          ? tools
          : kind === 'prompt'
            ? prompts
            : kind === 'resource'
              ? resources.resources
              : resources.templates
        ).announce(key);
    });
  }

  /** The module-level policies in force (as given, or as last replaced). */
  get policies(): readonly McpPolicyDefinition[] {
    return this.set.policies.filter((policy) => !this.declared.includes(policy)).map((policy) => policy.definition);
  }

  /** The version of the module-level policies: 0 as configured, then one more per replacement. */
  get policiesVersion(): number {
    return this.version;
  }

  /**
   * The policies in force as the admin API shows them: the module's (`governance.policies`, or
   * their replacement) each exactly as a replacement takes it — every field it was given,
   * `appliesTo` included — so that posting back what was read changes nothing; and, apart, those
   * declared with `@McpPolicy` (which a replacement does not touch), with where. `perCall` (it
   * reads the arguments or the result) is read-only: a replacement may carry it back.
   */
  read(): { version: number; policies: PolicyReading[]; declared: (PolicyReading & { where: string })[] } {
    const reading = (policy: CompiledPolicy): PolicyReading => ({ ...policy.definition, perCall: policy.perCall });
    return {
      version: this.version,
      policies: this.set.policies.filter((policy) => !this.declared.includes(policy)).map(reading),
      declared: this.declared.map((policy) => ({ ...reading(policy), where: policy.where })),
    };
  }

  /** Compiles the policies declared with `@McpPolicy` (every problem at once), and loads a replacement made before this replica started. */
  async onApplicationBootstrap(): Promise<void> {
    const sources = declaredPolicies(
      [this.tools, this.prompts, this.resources.resources, this.resources.templates],
      this.modules,
    );
    const { policies, diagnostics } = compilePolicies(sources, this.options.dryRun);
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
    this.declared = policies;
    this.set = new PolicySet([...this.set.policies, ...policies]);
    this.stopListening = this.store.onReplaced((replacement) => this.apply(replacement));
    const newest = await this.store.current();
    if (newest) this.apply(newest);
  }

  onModuleDestroy(): void {
    this.stopListening?.();
    this.stopPins?.();
  }

  /**
   * Replaces the module-level policies on every replica, validated first (nothing changes when a
   * policy is invalid), and audits the replacement.
   * @returns the problems, or the new version
   */
  async replace(
    definitions: unknown,
    actor: string,
  ): Promise<{ ok: true; version: number } | { ok: false; diagnostics: McpDiagnostic[] }> {
    if (!Array.isArray(definitions))
      return {
        ok: false,
        diagnostics: [{ where: 'policies', problem: 'must be a list', fix: '{ "policies": [ … ] }' }],
      };
    // `perCall` is what a read adds (read-only): a replacement may carry it back, and it is dropped.
    const readOnly: McpDiagnostic[] = [];
    definitions = definitions.map((definition: unknown, index) => {
      if (typeof definition !== 'object' || definition === null || !('perCall' in definition)) return definition;
      const { perCall, ...rest } = definition as Record<string, unknown>;
      if (typeof perCall !== 'boolean')
        readOnly.push({
          where: `governance.policies[${index}]`,
          problem: '"perCall" (read-only) must be a boolean, as read',
          fix: 'remove it: it is worked out from the condition',
        });
      return rest;
    });
    const { diagnostics } = this.compileModule(definitions as unknown[]);
    diagnostics.push(...readOnly);
    const ids = new Set(this.declared.map((policy) => policy.id));
    (definitions as { id?: unknown }[]).forEach((definition, index) => {
      if (typeof definition?.id === 'string' && ids.has(definition.id))
        diagnostics.push({
          where: `policies[${index}]`,
          problem: `policy id "${definition.id}" is declared with @McpPolicy on a provider`,
          fix: 'give it another id',
        });
    });
    if (diagnostics.length > 0) return { ok: false, diagnostics };
    const replacement: PolicyReplacement = {
      policies: definitions as McpPolicyDefinition[],
      version: Math.max(this.version, (await this.store.current())?.version ?? 0) + 1,
      by: actor,
      at: new Date().toISOString(),
    };
    await this.store.replace(replacement);
    this.trail?.record({
      startedAt: Date.now(),
      principal: actor,
      transport: 'http',
      method: 'admin/policies.replace',
      target: 'governance.policies',
      arguments: { version: replacement.version, policies: replacement.policies.map((policy) => policy.id) },
      outcome: 'ok',
      latencyMs: 0,
    });
    return { ok: true, version: replacement.version };
  }

  /** Whether a list must be filtered per caller at all (a policy decides who may see an entry). */
  get filtersLists(): boolean {
    return this.set.gates || this.pins?.holding === true;
  }

  /**
   * The key of the caller's view of lists (callers with the same key see the same entries), and
   * which entries they may see: those whose argument-independent policies hold (list ⇔ callable).
   */
  listFilter(kind: McpCallKind, caller: ListCaller): { key: string; visible: (entry: RegisteredHandler) => boolean } {
    const key = this.callerKey(caller);
    const pins = this.pins?.holding ? this.pins : undefined;
    return {
      key: `${this.version}|${pins?.version ?? 0}|${key}`,
      visible: (entry) => {
        if (pins?.heldReason(kind, entry.key) !== undefined) return false;
        const { gate } = this.set.of(kind, entry);
        return gate.length === 0 || enforced(this.gateDecision(key, caller, kind, entry, gate)) === undefined;
      },
    };
  }

  /**
   * The policies and guardrails on a call's arguments, in this order: a quarantined definition,
   * who may use the entry, the guardrails on the arguments as sent, the policies on them.
   * (The admission checks the arguments against the entry's schema between the guardrails and the
   * policies: it calls `screenCall` and `decideCall` apart.)
   */
  admitCall(call: GovernedCall): CallVerdict {
    const screened = this.screenCall(call);
    if (!screened) return this.decideCall(call, call.args);
    return screened.kind === 'allowed' ? this.decideCall(call, screened.args, screened) : screened;
  }

  /**
   * What is decided before a call's arguments are checked against the entry's schema: a
   * quarantined definition, the policies that do not read the arguments (who may use the entry),
   * then the guardrails on the arguments as sent (which may block them, or redact them: the call
   * goes on with what they let through).
   * @returns `undefined` when the call goes on with its arguments as sent and nothing to record yet
   */
  screenCall(call: GovernedCall): CallVerdict | undefined {
    // A quarantined definition (pinned catalogs): refused with what changed and how to approve it.
    const held = this.pins?.heldReason(call.kind, call.entry.key);
    if (held !== undefined)
      return { kind: 'refused', message: held, audit: { refused: [{ policy: PIN_POLICY_ID, reason: held }] } };
    const policies = this.set.of(call.kind, call.entry);
    let refused: PolicyRefusal[] | undefined;
    if (policies.gate.length > 0) {
      const refusals = this.gateDecision(this.callerKey(call), call, call.kind, call.entry, policies.gate);
      if (refusals) refused = [...refusals];
      if (enforced(refusals)) return { kind: 'hidden', audit: { refused: refused! } };
    }
    const plan = this.rules.length > 0 ? this.detectorsFor(call, 'arguments') : undefined;
    const scan = plan && plan.length > 0 ? scanValue(call.args, plan, 'arguments') : undefined;
    if (!scan)
      return refused
        ? { kind: 'allowed', args: call.args, audit: governanceOf(policies.gateIds, refused, undefined) }
        : undefined;
    const audit = governanceOf(policies.gateIds, refused, scan.findings);
    if (scan.blocked)
      return {
        kind: 'refused',
        message: GovernanceMessages.argumentsBlocked(describeFindings(scan.findings, 'block')),
        audit,
        recorded: scan.scrubbed,
      };
    return { kind: 'allowed', args: scan.value, audit, recorded: scan.scrubbed };
  }

  /**
   * The policies that read the arguments, on `args` — the arguments as checked against the entry's
   * schema (a DTO's types), or as `screenCall` let them through — after what `screenCall` decided.
   */
  decideCall(call: GovernedCall, args: unknown, screened?: CallVerdict & { kind: 'allowed' }): CallVerdict {
    const policies = this.set.of(call.kind, call.entry);
    const earlier = screened?.audit;
    let refused = earlier?.refused as PolicyRefusal[] | undefined;
    if (policies.call.length > 0) {
      // Objects per replica, filled for the decision and emptied after: conditions run synchronously.
      // The plain ones first: CEL values (the arguments converted) are made only if CEL must decide.
      const plain = this.plain;
      plain.principal = plainPrincipal(call.principal);
      plain.client = plainClient(call.client);
      plain.transport = call.transport;
      plain.entry = plainEntry(call.kind, call.entry);
      plain.args = args;
      let refusals: PolicyRefusal[] | undefined;
      try {
        refusals = decide(
          policies.call,
          () => {
            const bindings = this.fill(this.scratch, call, call.kind, call.entry);
            bindings.args = celValueOf(args);
            return bindings;
          },
          plain,
        );
      } finally {
        this.scratch.args = undefined;
        plain.args = undefined;
      }
      if (refusals) refused = [...(refused ?? []), ...refusals];
      const refusal = enforced(refusals);
      if (refusal)
        return {
          kind: 'refused',
          message: GovernanceMessages.refused(refusal.policy, refusal.reason),
          audit: governanceOf(policies.callIds, refused, earlier?.findings),
          ...(screened?.recorded !== undefined && { recorded: screened.recorded }),
        };
    }
    const findings = earlier?.findings;
    const audit = refused || findings ? governanceOf(policies.callIds, refused, findings) : policies.allowedAudit;
    return screened?.recorded !== undefined
      ? { kind: 'allowed', args, audit, recorded: screened.recorded }
      : { kind: 'allowed', args, audit };
  }

  /** The result policies and guardrails on what an entry answered. */
  screenResult(call: GovernedCall, result: unknown): ResultVerdict {
    const { result: onResult } = this.set.of(call.kind, call.entry);
    let refused: PolicyRefusal[] | undefined;
    if (onResult.length > 0) {
      const bindings = this.bindings(call);
      bindings.result = celValueOf(result);
      refused = decide(onResult, bindings);
      const refusal = enforced(refused);
      if (refusal)
        return {
          kind: 'withheld',
          message: GovernanceMessages.resultRefused(refusal.policy, refusal.reason),
          refused,
          findings: undefined,
        };
    }
    const plan = this.rules.length > 0 ? this.detectorsFor(call, 'result') : undefined;
    const scan = plan && plan.length > 0 ? scanValue(result, plan, 'result') : undefined;
    if (scan?.blocked)
      return {
        kind: 'withheld',
        message: GovernanceMessages.resultBlocked(describeFindings(scan.findings, 'block')),
        refused,
        findings: scan.findings,
      };
    return { kind: 'passed', result: scan ? scan.value : result, refused, findings: scan?.findings };
  }

  /** Whether anything looks at results (the engine skips the step otherwise). */
  get screensResults(): boolean {
    return this.rules.some((rule) => rule.result) || this.set.policies.some((policy) => policy.stage === 'result');
  }

  private apply(replacement: PolicyReplacement): void {
    if (replacement.version <= this.version) return;
    const { policies, diagnostics } = this.compileModule(replacement.policies);
    if (diagnostics.length > 0) {
      // Validated where it was made: another version of the host may disagree. Keep what holds.
      this.logger.error(
        `policies version ${replacement.version} by ${replacement.by} not applied: ${diagnostics.map((d) => `${d.where}: ${d.problem}`).join('; ')}`,
      );
      return;
    }
    this.version = replacement.version;
    this.set = new PolicySet([...policies, ...this.declared]);
    this.logger.log(
      `policies version ${replacement.version} by ${replacement.by} applied (${policies.length} policies)`,
    );
  }

  private compileModule(definitions: readonly unknown[]) {
    return compilePolicies(
      definitions.map((definition, index) => ({ definition, where: `governance.policies[${index}]` })),
      this.options.dryRun,
    );
  }

  /**
   * Who calls, as argument-independent conditions can tell callers apart: the principal (id,
   * scopes, roles, claims: made once per principal object), the client and the transport.
   */
  private callerKey(caller: ListCaller): string {
    let key = this.viewKeys.get(caller.principal);
    if (key === undefined) {
      const { id, scopes, roles, claims } = caller.principal;
      key = JSON.stringify([id, scopes, roles, claims]);
      this.viewKeys.set(caller.principal, key);
    }
    return `${key}|${caller.client?.name ?? ''}|${caller.client?.version ?? ''}|${caller.transport}`;
  }

  /** The decision of `entry`'s argument-independent policies for this caller, made once per caller and entry. */
  private gateDecision(
    key: string,
    caller: ListCaller,
    kind: McpCallKind,
    entry: RegisteredHandler,
    gate: readonly CompiledPolicy[],
  ): readonly PolicyRefusal[] | undefined {
    return this.set.gateDecision(key, entry, () => decide(gate, this.fill({}, caller, kind, entry)));
  }

  private fill(
    bindings: Record<string, unknown>,
    caller: ListCaller,
    kind: McpCallKind,
    entry: RegisteredHandler,
  ): Record<string, unknown> {
    bindings.principal = principalValue(caller.principal);
    bindings.client = clientValue(caller.client);
    bindings.transport = caller.transport;
    bindings.entry = entryValue(kind, entry);
    return bindings;
  }

  private bindings(call: GovernedCall): Record<string, unknown> {
    return this.fill({}, call, call.kind, call.entry);
  }

  /** The detectors armed for this call: the rules that apply to the entry and do not exempt the caller. */
  private detectorsFor(call: GovernedCall, stage: 'arguments' | 'result'): readonly ArmedDetector[] {
    let plans = this.armed.get(call.entry);
    if (!plans) {
      plans = {
        arguments: planOf(rulesOf(this.rules, 'arguments', call.kind, call.entry)),
        result: planOf(rulesOf(this.rules, 'result', call.kind, call.entry)),
      };
      this.armed.set(call.entry, plans);
    }
    const plan = plans[stage];
    if (!plan.exempting) return plan.detectors;
    const bindings = this.bindings(call);
    return armed(plan.rules.filter((rule) => !rule.exempts || rule.scope.evaluate(bindings) !== true));
  }
}
