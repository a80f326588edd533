import type { RegisteredHandler } from '#libs/catalog';
import { compilePolicies } from './policy-compiler';
import { decide, PolicySet } from './policy-set';

const entry = (key: string) =>
  ({ key, access: { scopes: [], roles: [] }, definition: {} }) as unknown as RegisteredHandler;

describe('PolicySet', () => {
  const { policies } = compilePolicies(
    [
      { definition: { id: 'not-blocked', condition: "principal.id != 'blocked'" }, where: 'p[0]' },
      { definition: { id: 'small', condition: 'args.amount < 10' }, where: 'p[1]' },
    ],
    false,
  );

  it('splits what decides who may use an entry from what reads the arguments', () => {
    const set = new PolicySet(policies);
    const of = set.of('tool', entry('refund'));
    expect(of.gate.map((policy) => policy.id)).toEqual(['not-blocked']);
    expect(of.call.map((policy) => policy.id)).toEqual(['small']);
    expect(set.gates).toBe(true);
  });

  it('decides the argument-independent policies once per caller and entry, and anew in a replaced set', () => {
    const refund = entry('refund');
    const set = new PolicySet(policies);
    let decided = 0;
    const decideNow = () => {
      decided++;
      return decide(set.of('tool', refund).gate, { principal: { id: 'blocked' } });
    };
    const first = set.gateDecision('blocked|desk|http', refund, decideNow);
    expect(first).toEqual([{ policy: 'not-blocked', reason: 'refused by policy not-blocked' }]);
    expect(set.gateDecision('blocked|desk|http', refund, decideNow)).toBe(first);
    expect(decided).toBe(1);
    set.gateDecision('blocked|desk|stdio', refund, decideNow);
    set.gateDecision('blocked|desk|http', entry('other'), decideNow);
    expect(decided).toBe(3);
    // Replaced policies are a new set: nothing decided before is kept.
    const replaced = new PolicySet(policies);
    replaced.gateDecision('blocked|desk|http', refund, decideNow);
    expect(decided).toBe(4);
  });
});

describe('appliesTo.sets: a policy on what an entry does, not what it is called', () => {
  const { policies, diagnostics } = compilePolicies(
    [{ definition: { id: 'urgent', condition: 'true', appliesTo: { sets: ['priority'] } }, where: 'p[0]' }],
    false,
  );
  const [urgent] = policies;
  const tool = (definition: object, extra: object = {}) =>
    ({ key: 'x', access: { scopes: [], roles: [] }, definition, ...extra }) as unknown as RegisteredHandler;
  const takes = (properties: object) => ({ inputSchema: { type: 'object', properties } });

  it('governs every tool that may set one of the fields, whatever its name or origin', () => {
    expect(diagnostics).toEqual([]);
    expect(urgent.applies('tool', tool(takes({ priority: {}, subject: {} })))).toBe(true);
    expect(urgent.applies('tool', tool(takes({ priority: {} }), { origin: { kind: 'upstream', name: 'deskb' } }))).toBe(
      true,
    );
    // A route no tool describes takes any argument: governed (fail closed).
    expect(urgent.applies('tool', tool({ annotations: { readOnlyHint: false } }))).toBe(true);
  });

  it('leaves out what cannot set them: another field, a read-only tool, prompts and resources', () => {
    expect(urgent.applies('tool', tool(takes({ subject: {} })))).toBe(false);
    expect(urgent.applies('tool', tool({ ...takes({ priority: {} }), annotations: { readOnlyHint: true } }))).toBe(
      false,
    );
    expect(urgent.applies('prompt', tool({ arguments: [{ name: 'priority' }] }))).toBe(false);
    expect(urgent.applies('resource', tool({}))).toBe(false);
    // Not a property a prototype lends every object.
    expect(
      compilePolicies(
        [{ definition: { id: 'p', condition: 'true', appliesTo: { sets: ['toString'] } }, where: 'p' }],
        false,
      ).policies[0].applies('tool', tool(takes({ subject: {} }))),
    ).toBe(false);
  });

  it('takes a list of argument names, each named', () => {
    const problems = compilePolicies(
      [
        { definition: { id: 'a', condition: 'true', appliesTo: { sets: 'priority' } }, where: 'p[0]' },
        { definition: { id: 'b', condition: 'true', appliesTo: { sets: [''] } }, where: 'p[1]' },
      ],
      false,
    ).diagnostics.map(({ where, problem }) => `${where}: ${problem}`);
    expect(problems).toEqual([
      'p[0]: "appliesTo.sets" must be a list of strings',
      'p[1]: "appliesTo.sets" names arguments: an empty name names none',
    ]);
  });
});
