import type { CelEnv } from '@bufbuild/cel';
import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind, McpDiagnostic } from '#libs/core';
import { GovernanceMessages } from '../messages/governance.messages';
import { celEngine } from './cel-engine';
import { POLICY_VARIABLES, type CompiledPolicy, type PolicyVariable } from './compiled-policy';
import type { McpPolicyDefinition, McpPolicyScope } from './mcp-policy.interface';
import { compileFastCondition, type FastCondition } from './fast-condition';

const KINDS = new Set(['tool', 'prompt', 'resource']);
const ORIGINS = new Set(['local', 'rest', 'api', 'upstream']);
const STAGES = new Set(['call', 'result']);
const POLICY_KEYS = new Set(['id', 'condition', 'reason', 'stage', 'appliesTo', 'dryRun']);
const SCOPE_KEYS = new Set(['kinds', 'names', 'origins', 'sources', 'sets']);
const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

let sharedEnv: CelEnv | undefined;
/** One CEL environment for every policy: the standard functions, nothing of ours. */
const env = () => (sharedEnv ??= celEngine().celEnv({}));

/** Where a policy was declared: the module options, a provider, an upstream or API. */
export interface PolicySource {
  readonly definition: unknown;
  /** For messages: `governance.policies[2]`, `TicketTools.createTicket`. */
  readonly where: string;
  /** The handler it was declared on (a decorator): it governs that handler's entries only. */
  readonly handler?: { hostClass: object; methodName?: string };
  /** Narrowing added by where it was declared (an upstream's or API's own policies). */
  readonly scope?: McpPolicyScope;
}

/**
 * Compiles policy definitions: every problem of every policy reported at once, each with its
 * place and its fix (a condition that does not parse, an unknown variable, a duplicate id, a
 * malformed `appliesTo`); what compiles is planned once.
 */
export function compilePolicies(
  sources: readonly PolicySource[],
  dryRunAll: boolean,
): { policies: CompiledPolicy[]; diagnostics: McpDiagnostic[] } {
  const diagnostics: McpDiagnostic[] = [];
  const policies: CompiledPolicy[] = [];
  const seen = new Map<string, string>();
  for (const source of sources) {
    const report = (problem: string, fix: string) => diagnostics.push({ where: source.where, problem, fix });
    const policy = compileOne(source, dryRunAll, report);
    if (!policy) continue;
    const other = seen.get(policy.id);
    if (other) report(GovernanceMessages.duplicateId(policy.id, other), 'give each policy an id of its own');
    else seen.set(policy.id, source.where);
    policies.push(policy);
  }
  return { policies, diagnostics };
}

function compileOne(
  source: PolicySource,
  dryRunAll: boolean,
  report: (problem: string, fix: string) => void,
): CompiledPolicy | undefined {
  const given = source.definition;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('must be an object', "e.g. { id: 'tenant-match', condition: 'args.tenant == principal.claims.tenant' }");
    return undefined;
  }
  const d = given as Record<string, unknown>;
  let ok = true;
  const bad = (problem: string, fix: string) => {
    ok = false;
    report(problem, fix);
  };
  for (const key of Object.keys(d))
    if (!POLICY_KEYS.has(key)) bad(`has an unknown field "${key}"`, `remove it; known: ${[...POLICY_KEYS].join(', ')}`);
  if (typeof d.id !== 'string' || !ID.test(d.id))
    bad('"id" must be letters, digits, "_", "-", ".", ":" (1-100)', "e.g. id: 'urgent-needs-lead'");
  if (d.reason !== undefined && (typeof d.reason !== 'string' || d.reason.trim() === ''))
    bad('"reason" must be a non-empty string', "e.g. reason: 'only a team lead may open an urgent ticket'");
  if (d.stage !== undefined && !STAGES.has(d.stage as string))
    bad('"stage" must be "call" or "result"', "stage: 'call'");
  if (d.dryRun !== undefined && typeof d.dryRun !== 'boolean') bad('"dryRun" must be a boolean', 'dryRun: true');
  const scope = checkScope(d.appliesTo, bad);
  const stage = (d.stage as 'call' | 'result' | undefined) ?? 'call';
  let evaluate: CompiledPolicy['evaluate'] | undefined;
  let fast: FastCondition | undefined;
  let reads = new Set<PolicyVariable>();
  if (typeof d.condition !== 'string' || d.condition.trim() === '') {
    bad('"condition" must be a CEL expression', 'e.g. condition: "\'agent\' in principal.roles"');
  } else {
    try {
      const { parse, plan } = celEngine();
      const parsed = parse(d.condition);
      const names = identifiersOf(parsed.expr);
      const unknown = [...names].filter((name) => !(POLICY_VARIABLES as readonly string[]).includes(name));
      if (unknown.length > 0)
        bad(GovernanceMessages.unknownVariables(unknown), `use only ${POLICY_VARIABLES.join(', ')}`);
      reads = new Set([...names].filter((name): name is PolicyVariable => !unknown.includes(name)));
      if (stage === 'call' && reads.has('result'))
        bad('reads "result" but looks at the call', "set stage: 'result' to look at what the entry answered");
      if (stage === 'result' && reads.has('args'))
        bad(
          'reads "args" but looks at the result',
          'remove args: a result policy sees principal, client, transport, entry and result',
        );
      evaluate = plan(env(), parsed) as CompiledPolicy['evaluate'];
      fast = compileFastCondition(parsed.expr, POLICY_VARIABLES);
    } catch (error) {
      bad(
        GovernanceMessages.badCondition((error as Error).message),
        'fix the expression (CEL syntax: https://cel.dev)',
      );
    }
  }
  if (!ok || !evaluate) return undefined;
  const id = d.id as string;
  const scopes = [scope, source.scope].filter((s): s is McpPolicyScope => s !== undefined);
  const handler = source.handler;
  return {
    id,
    where: source.where,
    definition: { ...(d as unknown as McpPolicyDefinition), ...(scopes[0] && { appliesTo: scopes[0] }) },
    stage,
    reason: (d.reason as string | undefined) ?? `refused by policy ${id}`,
    dryRun: dryRunAll || d.dryRun === true,
    perCall: stage === 'result' || reads.has('args'),
    reads,
    applies: (kind, entry) => (!handler || declaredOn(handler, entry)) && scopes.every((s) => inScope(s, kind, entry)),
    evaluate,
    ...(fast && { fast }),
  };
}

function checkScope(given: unknown, bad: (problem: string, fix: string) => void): McpPolicyScope | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    bad('"appliesTo" must be an object', "e.g. appliesTo: { names: ['create_ticket'] }");
    return undefined;
  }
  const scope = given as Record<string, unknown>;
  for (const key of Object.keys(scope))
    if (!SCOPE_KEYS.has(key)) bad(`"appliesTo" has an unknown field "${key}"`, `known: ${[...SCOPE_KEYS].join(', ')}`);
  const list = (key: string, allowed?: Set<string>) => {
    const value = scope[key];
    if (value === undefined) return;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || (allowed && !allowed.has(item))))
      bad(
        `"appliesTo.${key}" must be a list of ${allowed ? [...allowed].join(' / ') : 'strings'}`,
        `e.g. ${key}: ['${allowed ? [...allowed][0] : 'create_ticket'}']`,
      );
  };
  list('kinds', KINDS);
  list('names');
  list('origins', ORIGINS);
  list('sources');
  list('sets');
  if (Array.isArray(scope.sets) && scope.sets.some((field) => field === ''))
    bad('"appliesTo.sets" names arguments: an empty name names none', "e.g. sets: ['priority']");
  return scope as McpPolicyScope;
}

const globs = new Map<string, RegExp>();
/** `*` matches any run of characters; everything else literally. */
function globMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  let regex = globs.get(pattern);
  if (!regex) {
    regex = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      's',
    );
    globs.set(pattern, regex);
  }
  return regex.test(name);
}

/** Whether `entry` is (or, made from a REST route, runs) the handler a policy was declared on. */
function declaredOn(handler: NonNullable<PolicySource['handler']>, entry: RegisteredHandler): boolean {
  const target = entry.runs ?? entry;
  return (
    target.hostClass === handler.hostClass &&
    (handler.methodName === undefined || target.methodName === handler.methodName)
  );
}

function inScope(scope: McpPolicyScope, kind: McpCallKind, entry: RegisteredHandler): boolean {
  const origin = entry.origin ?? { kind: 'local' as const };
  return (
    (!scope.kinds || scope.kinds.includes(kind)) &&
    (!scope.origins || scope.origins.includes(origin.kind)) &&
    (!scope.sources || (origin.name !== undefined && scope.sources.includes(origin.name))) &&
    (!scope.names || scope.names.some((pattern) => globMatches(pattern, entry.key))) &&
    (!scope.sets || setsOneOf(scope.sets, kind, entry))
  );
}

/**
 * Whether `entry` may set one of `fields`: a tool not marked read-only whose input schema has one
 * of them among its properties (or describes none: a route no tool is made of, a schema with no
 * properties — taken to take any). Decided once per entry (`PolicySet.of`).
 */
function setsOneOf(fields: readonly string[], kind: McpCallKind, entry: RegisteredHandler): boolean {
  if (kind !== 'tool') return false;
  const definition = entry.definition as {
    annotations?: { readOnlyHint?: unknown };
    inputSchema?: { properties?: Record<string, unknown> };
  };
  if (definition.annotations?.readOnlyHint === true) return false;
  const properties = definition.inputSchema?.properties;
  return !properties || fields.some((field) => Object.prototype.hasOwnProperty.call(properties, field));
}

/** The free variables of a parsed expression (a comprehension's own variables are not). */
function identifiersOf(root: unknown): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown, bound: ReadonlySet<string>): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, bound);
      return;
    }
    const record = node as Record<string, unknown>;
    if (record.case === 'identExpr') {
      const name = (record.value as { name: string }).name;
      if (!bound.has(name)) found.add(name);
      return;
    }
    if (record.case === 'comprehensionExpr') {
      const c = record.value as Record<string, unknown>;
      const inner = new Set([...bound, c.iterVar as string, c.iterVar2 as string, c.accuVar as string]);
      visit(c.iterRange, bound);
      visit(c.accuInit, bound);
      for (const key of ['loopCondition', 'loopStep', 'result']) visit(c[key], inner);
      return;
    }
    for (const [key, value] of Object.entries(record)) if (key !== '$typeName') visit(value, bound);
  };
  visit(root, new Set());
  return found;
}
