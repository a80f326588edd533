import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { POLICY_VARIABLES } from './compiled-policy';
import { compileFastCondition, UNKNOWN } from './fast-condition';
import { celValueOf } from './policy-bindings';

/** The shapes the fast path compiles, as teams write them (docs/governance.md, the desk's policies). */
const SHAPES = [
  "!has(args.priority) || args.priority != 'urgent' || 'lead' in principal.roles",
  "args.amount <= 500 || 'finance' in principal.roles",
  'args.amount < 1000000',
  '!has(args.amount) || args.amount < 1000000',
  "args.priority in ['low', 'normal', 'high']",
  '!has(principal.claims.tenant) || (has(args.tenant) && args.tenant == principal.claims.tenant)',
  'size(args.priority) <= 10',
  "args.priority.size() >= 2 && args.priority.startsWith('ur') && !args.priority.endsWith(' ')",
  'args.nested.x == 5 || args.nested.x > 5.5',
  'has(args.nested.x) && args.nested.x >= -1',
  "principal.id != 'blocked' || has(args.b)",
  'args.amount == 9007199254740993',
  'args.amount < 9007199254740993',
  "args['priority'] == 'urgent'",
  "args.list[0] == 'urgent'",
  "'urgent' in args.list",
  "entry.origin == 'local' && transport == 'http' && entry.name == 'refund'",
  "args.priority > 'm'",
  'args.amount != 5 && args.amount >= 0.5',
  'size(args) > 1',
  "args.priority.contains('gen')",
  '!(args.amount > 10)',
  'args.amount == null',
  'args.flag == true || args.flag == false',
  'true',
  'args.priority < 5',
  "'tenant' in principal.claims",
  "client.name == 'bench' || client.version >= '2'",
  "args.amount in [1, 2.5, 'x']",
  'has(args.constructor) || has(args.nested.__proto__)',
  "args.nested.constructor == 'c'",
];

/** Values an attacker would send in place of the expected one: type confusion, look-alikes, nesting. */
const VALUES: unknown[] = [
  'urgent',
  'Urgent',
  'urgent ',
  'urg\u0435nt', // Cyrillic е
  'urgent\u200B',
  '',
  'low',
  'a😀b',
  '\uD800',
  'zz',
  5,
  5.5,
  0,
  -1,
  0.5,
  500,
  500.0000001,
  1e300,
  9007199254740992,
  9007199254740994,
  -0,
  true,
  false,
  null,
  [],
  ['urgent'],
  [5],
  {},
  { priority: 'urgent' },
  { x: 5 },
  new Date(0),
  undefined,
  JSON.parse('{"__proto__": {"x": 5}, "constructor": "c"}'),
  [[5]],
];

const PRINCIPALS = [
  { id: 'alice', scopes: ['a'], roles: ['lead'], claims: { tenant: 'acme' } },
  { id: 'blocked', scopes: [], roles: [], claims: {} },
  { id: 'bob', scopes: [], roles: ['finance'], claims: { tenant: 5 } },
  { id: 'eve', scopes: [], roles: ['le\u0430d'], claims: { tenant: 'acme ' } },
];

const ENTRY = {
  kind: 'tool',
  name: 'refund',
  origin: 'local',
  source: '',
  route: '',
  annotations: {},
  scopes: [],
  roles: [],
};

function argsWith(value: unknown): Record<string, unknown> {
  return { priority: value, amount: value, tenant: value, nested: { x: value }, list: [value], flag: value, b: value };
}

describe('conditions compiled to JavaScript agree with CEL', () => {
  const env = celEnv({});
  const inputs = VALUES.flatMap((value) =>
    PRINCIPALS.map((principal, i) => ({
      principal,
      client: i % 2 === 0 ? { name: 'bench', version: '1.0' } : {},
      transport: i === 3 ? 'stdio' : 'http',
      entry: ENTRY,
      // Every other input without the fields (missing: a CEL error), or with the value nested.
      args: i === 1 ? {} : argsWith(value),
    })),
  );

  it.each(SHAPES)('%s', (condition) => {
    const parsed = parse(condition);
    const fast = compileFastCondition(parsed.expr, POLICY_VARIABLES)!;
    expect(fast).toBeDefined();
    const evaluate = plan(env, parsed);
    let decided = 0;
    let answered = 0;
    for (const plain of inputs) {
      const bindings = Object.fromEntries(Object.entries(plain).map(([name, value]) => [name, celValueOf(value)]));
      const cel = evaluate(bindings as never);
      const answer = fast(plain);
      if (typeof cel === 'boolean') answered++;
      if (answer === UNKNOWN) continue;
      decided++;
      // What the fast path decides is CEL's answer, exactly (an error is never decided).
      if (cel !== answer)
        throw new Error(
          `${condition} with ${JSON.stringify(plain.args)} as ${plain.principal.id}: fast ${String(answer)}, CEL ${isCelError(cel) ? `error ${cel.message}` : String(cel)}`,
        );
    }
    // It decides most of what CEL answers (not integers beyond 2^53 against doubles): otherwise
    // it would cost more than it saves.
    if (!condition.includes('9007199254740993')) expect(decided).toBeGreaterThanOrEqual(answered * 0.75);
  });

  it('leaves other shapes to CEL', () => {
    for (const condition of [
      "args.list.exists(x, x == 'a')",
      'args.a ? true : false',
      "args.name.matches('^a')",
      'int(args.a) < 5',
      'args.a + 1 < 5',
      "args.a == b'x'",
      '-args.a < 5',
    ])
      expect(compileFastCondition(parse(condition).expr, POLICY_VARIABLES)).toBeUndefined();
  });

  it('decides the well-typed calls of the usual policies itself', () => {
    const urgentNeedsLead = compileFastCondition(
      parse("!has(args.priority) || args.priority != 'urgent' || 'lead' in principal.roles").expr,
      POLICY_VARIABLES,
    )!;
    const agent = { principal: { roles: ['agent'] } };
    expect(urgentNeedsLead({ ...agent, args: { priority: 'high' } })).toBe(true);
    expect(urgentNeedsLead({ ...agent, args: {} })).toBe(true);
    expect(urgentNeedsLead({ ...agent, args: { priority: 'urgent' } })).toBe(false);
    expect(urgentNeedsLead({ principal: { roles: ['lead'] }, args: { priority: 'urgent' } })).toBe(true);
    // Type confusion: a list is not the string, as CEL's heterogeneous equality says (the table above);
    // a number compared with a string is CEL's to refuse (an error), not the fast path's.
    expect(urgentNeedsLead({ ...agent, args: { priority: ['urgent'] } })).toBe(true);
    const limit = compileFastCondition(parse('args.amount <= 500').expr, POLICY_VARIABLES)!;
    expect(limit({ args: { amount: '100' } })).toBe(UNKNOWN);
    expect(limit({ args: { amount: 100 } })).toBe(true);
  });
});

/**
 * CEL's conformance suite (google/cel-spec, as `@bufbuild/cel-spec` ships it): every test whose
 * expression the fast path compiles without variables, decided by it, must get the suite's answer
 * — and an expression the suite expects an error from must be left to CEL.
 */
interface ConformanceValue {
  kind?: { case: string; value: unknown };
}
const NOT_PLAIN = Symbol('not plain');

/** A conformance binding as the plain value a call's arguments would hold, or NOT_PLAIN (bytes, uint, messages, …). */
function plainOf(value: ConformanceValue): unknown {
  const kind = value.kind;
  switch (kind?.case) {
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
    case 'int64Value':
      return kind.value;
    case 'nullValue':
      return null;
    case 'listValue': {
      const items = ((kind.value as { values: ConformanceValue[] }).values ?? []).map(plainOf);
      return items.includes(NOT_PLAIN) ? NOT_PLAIN : items;
    }
    case 'mapValue': {
      const map: Record<string, unknown> = {};
      for (const entry of (kind.value as { entries: { key: ConformanceValue; value: ConformanceValue }[] }).entries) {
        if (entry.key.kind?.case !== 'stringValue') return NOT_PLAIN;
        const item = plainOf(entry.value);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        map[entry.key.kind.value as string] = item;
      }
      return map;
    }
    default:
      return NOT_PLAIN;
  }
}

describe('conditions compiled to JavaScript against the CEL conformance suite', () => {
  interface SimpleTest {
    name: string;
    expr: string;
    disableMacros: boolean;
    container: string;
    bindings: Record<string, unknown>;
    resultMatcher: { case?: string; value?: { kind?: { case: string; value: unknown } } };
  }
  interface Suite {
    name: string;
    suites?: Suite[];
    tests?: { original: SimpleTest }[];
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { getConformanceSuite } = require('@bufbuild/cel-spec/testdata/tests.js') as {
    getConformanceSuite: () => Suite;
  };
  const tests: SimpleTest[] = [];
  const walk = (suite: Suite) => {
    for (const test of suite.tests ?? []) tests.push(test.original);
    for (const inner of suite.suites ?? []) walk(inner);
  };
  walk(getConformanceSuite());

  it('gives the suite’s answer for every expression it decides, and decides none the suite expects an error from', () => {
    let decided = 0;
    const wrong: string[] = [];
    for (const test of tests) {
      if (test.container !== '' || test.disableMacros) continue;
      const bindings: Record<string, unknown> = {};
      let convertible = true;
      for (const [name, bound] of Object.entries(test.bindings)) {
        const kind = (bound as { kind?: { case: string; value: ConformanceValue } }).kind;
        const plain = kind?.case === 'value' ? plainOf(kind.value) : NOT_PLAIN;
        if (plain === NOT_PLAIN) convertible = false;
        bindings[name] = plain;
      }
      if (!convertible) continue;
      let expr;
      try {
        expr = parse(test.expr).expr;
      } catch {
        continue;
      }
      const fast = compileFastCondition(expr, Object.keys(bindings));
      if (!fast) continue;
      const answer = fast(bindings);
      if (answer === UNKNOWN) continue;
      decided++;
      const { resultMatcher } = test;
      const value =
        resultMatcher.case === 'typedResult'
          ? (resultMatcher.value as { result?: { kind?: { case: string; value: unknown } } }).result
          : resultMatcher.case === 'value'
            ? resultMatcher.value
            : undefined;
      const expected =
        value?.kind?.case === 'boolValue' ? value.kind.value : `${resultMatcher.case}: ${value?.kind?.case ?? ''}`;
      if (answer !== expected)
        wrong.push(`${test.name}: ${test.expr} → ${String(answer)}, expected ${String(expected)}`);
    }
    expect(wrong).toEqual([]);
    // Hundreds of comparisons, equalities, `in`, size and string tests of the suite are decided here.
    expect(decided).toBeGreaterThan(100);
  });
});
