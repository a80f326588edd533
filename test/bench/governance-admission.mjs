// The cost of governance in the admission of one tools/call, in process (no HTTP, no other work):
// McpGovernance.admitCall (the step the engine runs, docs/security.md step 4) with 0 policies,
// 10 policies that read the arguments (apps/bench's worst case), 10 that read only who calls
// which entry (decided once per caller and entry), and with the guardrails. Interleaved rounds,
// medians. `node test/bench/governance-admission.mjs` after `npm run build`.
import 'reflect-metadata';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { McpGovernance } = require('../../libs/dist/governance/src/mcp-governance.js');
const { InProcessPolicyStore } = require('../../libs/dist/governance/src/store/policy-store.js');

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CALLS = Number(process.env.CALLS ?? 200_000);

const argsPolicies = (count) =>
  Array.from({ length: count }, (_, i) => ({
    id: `bench-${i}`,
    condition: i % 2 === 0 ? `!has(args.a) || args.a < ${1_000_000 + i}` : "principal.id != 'blocked' || has(args.b)",
  }));
const callerPolicies = (count) =>
  Array.from({ length: count }, (_, i) => ({
    id: `bench-${i}`,
    condition: `principal.id != 'blocked-${i}' && entry.origin == 'local'`,
  }));
const GUARDRAILS = {
  rules: [
    { detectors: ['api-key', 'private-key'], action: 'block' },
    { detectors: ['email', 'phone'], on: 'result', action: 'redact' },
    { detectors: ['card', 'iban'], on: 'arguments', action: 'flag' },
  ],
};
const VARIANTS = {
  'no policies': { policies: [] },
  '10 policies on the arguments': { policies: argsPolicies(10) },
  // The same, every condition interpreted by CEL (the fast path of fast-condition.ts taken away).
  '10 policies on the arguments, CEL only': { policies: argsPolicies(10), celOnly: true },
  '10 policies on the caller': { policies: callerPolicies(10) },
  '100 policies on the arguments': { policies: argsPolicies(100) },
  '10 policies on the arguments + guardrails': { policies: argsPolicies(10), guardrails: GUARDRAILS },
};

const none = { all: () => [] };
const entry = {
  key: 'add',
  where: 'AddTool.add',
  definition: { name: 'add', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  access: { scopes: [], roles: [] },
};
// As the engine passes them: the principal and client of the caller's session, new arguments per call.
const principal = { id: 'anonymous', scopes: [], roles: [], claims: {} };
const client = { name: 'bench', version: '1.0.0' };

const governances = Object.fromEntries(
  Object.entries(VARIANTS).map(([name, options]) => {
    const store = new InProcessPolicyStore();
    const governance = new McpGovernance(options, none, none, { resources: none, templates: none }, store);
    if (options.celOnly) for (const policy of governance.set.policies) delete policy.fast;
    return [name, governance];
  }),
);

function measure(governance) {
  let i = 0;
  const start = process.hrtime.bigint();
  for (; i < CALLS; i++) {
    const verdict = governance.admitCall({
      principal,
      client,
      transport: 'http',
      kind: 'tool',
      entry,
      args: { a: i, b: 2 },
    });
    if (verdict.kind !== 'allowed') throw new Error(JSON.stringify(verdict));
  }
  return Number(process.hrtime.bigint() - start) / CALLS / 1000;
}

const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
for (const governance of Object.values(governances)) measure(governance); // warm-up
for (let round = 0; round < ROUNDS; round++)
  for (const [name, governance] of Object.entries(governances)) results[name].push(measure(governance));
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`| admission | µs per call (median of ${ROUNDS}) |\n|---|---:|`);
for (const [name, values] of Object.entries(results)) console.log(`| ${name} | ${median(values).toFixed(2)} |`);
