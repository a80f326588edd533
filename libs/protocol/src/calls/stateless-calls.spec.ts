import { CallCancellation } from '#libs/invocation';
import { StatelessCalls } from './stateless-calls';

describe('StatelessCalls', () => {
  it('finds a call by its caller and id, and forgets it once it ends', () => {
    const calls = new StatelessCalls();
    const call = new CallCancellation();
    const forget = calls.add('alice', 7, call);
    expect(calls.find('alice', 7)).toBe(call);
    expect(calls.find('bob', 7)).toBeUndefined();
    expect(calls.find('alice', '7')).toBeUndefined();
    forget();
    expect(calls.find('alice', 7)).toBeUndefined();
  });

  it('names no call while two of one caller share an id, and the other once one ends', () => {
    const calls = new StatelessCalls();
    const [first, second, third] = [new CallCancellation(), new CallCancellation(), new CallCancellation()];
    const forgetFirst = calls.add('alice', 1, first);
    const forgetSecond = calls.add('alice', 1, second);
    expect(calls.find('alice', 1)).toBeUndefined();
    forgetFirst();
    expect(calls.find('alice', 1)).toBe(second);
    const forgetThird = calls.add('alice', 1, third);
    expect(calls.find('alice', 1)).toBeUndefined();
    forgetSecond();
    forgetThird();
    expect(calls.find('alice', 1)).toBeUndefined();
    forgetFirst(); // twice: nothing more happens
    expect(calls.find('alice', 1)).toBeUndefined();
  });
});
