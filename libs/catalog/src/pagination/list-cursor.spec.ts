import { JsonRpcError } from '#libs/core';
import { decodeCursor, encodeCursor } from './list-cursor';

describe('list cursors', () => {
  it('round-trips an offset', () => {
    expect(decodeCursor('tools', encodeCursor('tools', 40), 100)).toBe(40);
    expect(decodeCursor('tools', undefined, 100)).toBe(0);
  });

  it.each([
    ['garbage', 'garbage'],
    ['another list', encodeCursor('prompts', 10)],
    ['out of range', encodeCursor('tools', 500)],
    ['not a string', 42],
  ])('rejects %s with -32602', (_label, cursor) => {
    expect(() => decodeCursor('tools', cursor, 100)).toThrow(JsonRpcError);
    try {
      decodeCursor('tools', cursor, 100);
    } catch (error) {
      expect((error as JsonRpcError).code).toBe(-32602);
    }
  });
});
