// The two policy engines the governance library could be built on, measured on the same decisions:
// CEL (`@bufbuild/cel`, parsed and planned once) and Cedar (`@cedar-policy/cedar-wasm`, the policy
// set pre-parsed once in the wasm module, one `statefulIsAuthorized` per decision). A decision is
// one call's admission: N policies over the principal, the entry and the arguments. Seconds:
//   node test/bench/policy-engines.mjs
//
// Env: POLICY_BENCH_DECISIONS  decisions per measurement (default 20000)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { celEnv, parse, plan, isCelError, celList, celMap } = require('@bufbuild/cel');
const cedar = require('@cedar-policy/cedar-wasm/nodejs');

const DECISIONS = Number(process.env.POLICY_BENCH_DECISIONS ?? 20_000);

const principal = {
  id: 'alice',
  scopes: ['tickets:read', 'tickets:write'],
  roles: ['agent'],
  claims: { tenant: 'acme', department: 'support' },
};
const entry = { kind: 'tool', name: 'create_ticket', origin: 'local', annotations: { destructiveHint: false } };
// Arguments as MCP clients send them: strings and integers (Cedar has no floating-point numbers).
const args = { title: 'Printer on fire', priority: 'high', tenant: 'acme', amount: 40 };

/** The i-th policy, as CEL and as Cedar: shapes a team writes (role gates, tenant match, limits). */
function policy(i) {
  switch (i % 5) {
    case 0:
      return {
        cel: `entry.name != 'create_ticket' || args.priority != 'urgent' || 'lead' in principal.roles`,
        cedar: `forbid(principal, action, resource == Tool::"create_ticket") when { context.args has priority && context.args.priority == "urgent" } unless { principal.roles.contains("lead") };`,
      };
    case 1:
      return {
        cel: `!has(args.tenant) || args.tenant == principal.claims.tenant`,
        cedar: `forbid(principal, action, resource) when { context.args has tenant && principal.claims has tenant && context.args.tenant != principal.claims.tenant };`,
      };
    case 2:
      return {
        cel: `!has(args.amount) || args.amount <= ${100 + i}`,
        cedar: `forbid(principal, action, resource) when { context.args has amount && context.args.amount > ${100 + i} };`,
      };
    case 3:
      return {
        cel: `entry.origin != 'upstream' || 'upstream:use' in principal.scopes`,
        cedar: `forbid(principal, action, resource) when { context.origin == "upstream" } unless { principal.scopes.contains("upstream:use") };`,
      };
    default:
      return {
        cel: `!(entry.annotations.destructiveHint == true) || 'admin' in principal.roles || ${i} < 0`,
        cedar: `forbid(principal, action, resource) when { context.destructive == true && ${i} >= 0 } unless { principal.roles.contains("admin") };`,
      };
  }
}

/** A JSON value as CEL values, converted once (as libs/governance does: principal and entry once, the arguments per call). */
function celValue(value) {
  if (Array.isArray(value)) return celList(value.map(celValue));
  if (value !== null && typeof value === 'object')
    return celMap(new Map(Object.entries(value).map(([key, item]) => [key, celValue(item)])));
  return value;
}

function celDecider(count) {
  const env = celEnv({});
  const plans = Array.from({ length: count }, (_, i) => plan(env, parse(policy(i).cel)));
  const fixed = { principal: celValue(principal), entry: celValue(entry) };
  return () => {
    if (plans.length === 0) return 'allow';
    const bindings = { ...fixed, args: celValue(args) };
    for (const evaluate of plans) {
      const value = evaluate(bindings);
      if (value !== true) return isCelError(value) ? 'error' : 'deny';
    }
    return 'allow';
  };
}

let sets = 0;
function cedarDecider(count) {
  const id = `bench-${sets++}-${count}`;
  const text = ['permit(principal, action, resource);', ...Array.from({ length: count }, (_, i) => policy(i).cedar)];
  const parsed = cedar.preparsePolicySet(id, { staticPolicies: text.join('\n') });
  if (parsed.type !== 'success') throw new Error(JSON.stringify(parsed.errors));
  return () => {
    // What every decision must hand to the wasm module: the request, its context and entities.
    const answer = cedar.statefulIsAuthorized({
      principal: { type: 'User', id: principal.id },
      action: { type: 'Action', id: 'call' },
      resource: { type: 'Tool', id: entry.name },
      context: { args, origin: entry.origin, destructive: entry.annotations.destructiveHint === true },
      preparsedPolicySetId: id,
      entities: [
        {
          uid: { type: 'User', id: principal.id },
          attrs: { scopes: principal.scopes, roles: principal.roles, claims: principal.claims },
          parents: [],
        },
      ],
    });
    if (answer.type !== 'success') return 'error';
    return answer.response.decision;
  };
}

function measure(decide) {
  for (let i = 0; i < 2_000; i++) decide();
  const started = process.hrtime.bigint();
  let last;
  for (let i = 0; i < DECISIONS; i++) last = decide();
  const ns = Number(process.hrtime.bigint() - started);
  return { us: ns / DECISIONS / 1000, last };
}

const rows = [];
for (const count of [0, 1, 10, 100]) {
  // Interleaved, three rounds, median.
  const cel = [];
  const ced = [];
  let decisions;
  for (let round = 0; round < 3; round++) {
    const a = measure(celDecider(count));
    const b = measure(cedarDecider(count));
    cel.push(a.us);
    ced.push(b.us);
    decisions = `${a.last}/${b.last}`;
  }
  const median = (values) => values.sort((x, y) => x - y)[1];
  rows.push({ count, cel: median(cel), cedar: median(ced), decisions });
}
console.log(`Node ${process.version}, ${DECISIONS} decisions per measurement, medians of 3 interleaved rounds`);
console.log('| policies | CEL µs/decision | Cedar µs/decision | Cedar ÷ CEL | decision (CEL/Cedar) |');
console.log('| ---: | ---: | ---: | ---: | --- |');
for (const { count, cel, cedar: ced, decisions } of rows)
  console.log(
    `| ${count} | ${cel.toFixed(2)} | ${ced.toFixed(2)} | ${(ced / Math.max(cel, 0.01)).toFixed(1)}× | ${decisions} |`,
  );
