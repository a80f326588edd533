import { JsonRpcError } from '#libs/core';
import { checkRequestLimits, DEFAULT_REQUEST_LIMITS } from './request-limits';

const limits = {
  ...DEFAULT_REQUEST_LIMITS,
  maxStringLength: 10,
  maxArrayLength: 3,
  maxDepth: 4,
  maxArguments: 2,
  maxUriLength: 8,
};
const refusal = (params: Record<string, unknown>) => {
  try {
    checkRequestLimits(params, limits);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcError);
    return (error as JsonRpcError).message;
  }
};

describe('checkRequestLimits', () => {
  it('accepts params within every limit', () => {
    expect(refusal({ name: 'tool', arguments: { a: 'short', b: [1, 2, 3] } })).toBeUndefined();
  });

  it('names the string, array, depth or argument count that is too large', () => {
    expect(refusal({ arguments: { a: 'x'.repeat(11) } })).toBe(
      'Request too large: params.arguments.a is 11 characters long; at most 10 are accepted',
    );
    expect(refusal({ arguments: { a: [1, 2, 3, 4] } })).toBe(
      'Request too large: params.arguments.a has 4 items; at most 3 are accepted',
    );
    expect(refusal({ arguments: { a: { b: { c: { d: 1 } } } } })).toBe(
      'Request too large: params.arguments.a.b.c is nested deeper than 4 levels',
    );
    expect(refusal({ arguments: { a: 1, b: 2, c: 3 } })).toBe(
      'Request too large: params.arguments has 3 arguments; at most 2 are accepted',
    );
  });

  it('names a resource URI that is too long, in a read or subscription and in a completion ref', () => {
    expect(refusal({ uri: 'kb://abc' })).toBeUndefined();
    expect(refusal({ uri: 'kb://abcd' })).toBe(
      'Request too large: params.uri is 9 characters long; URIs of at most 8 are accepted',
    );
    expect(refusal({ ref: { type: 'ref/resource', uri: 'kb://{abcd}' } })).toBe(
      'Request too large: params.ref.uri is 11 characters long; URIs of at most 8 are accepted',
    );
  });

  it('walks a hostile nesting depth without exhausting the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal({ arguments: { deep } })).toMatch(/nested deeper than 4 levels$/);
  });
});
