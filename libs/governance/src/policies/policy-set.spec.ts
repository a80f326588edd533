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
