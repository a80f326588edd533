import type { CliLiteral, CliScalarType, CliValueType } from '#libs/catalog';
import { expectedOf, readItems, readWord } from './value-parser';

const scalar = (types: CliScalarType[], values?: CliLiteral[]): CliValueType => ({
  kind: 'scalar',
  types,
  ...(values && { values }),
});

describe('expectedOf', () => {
  it.each<[CliValueType, string]>([
    [scalar(['string']), 'a string'],
    [scalar(['integer', 'null']), 'an integer or null'],
    [scalar(['boolean']), 'true or false'],
    [scalar([], ['low', 'high']), 'one of low, high'],
    [scalar(['integer'], ['all']), 'one of all or an integer'],
    [scalar([], [1, true, null]), 'one of 1, true, null'],
    [{ kind: 'array', items: scalar(['number']) }, 'a list, each item a number'],
    [{ kind: 'json' }, 'a JSON value'],
    [{ kind: 'any' }, 'a value'],
  ])('%j → %s', (type, expected) => expect(expectedOf(type)).toBe(expected));
});

describe('readWord', () => {
  it('reads enum members of any JSON type by how they are written', () => {
    const type = scalar([], [1, 2, true, null, 'x']);
    expect(readWord('2', type)).toEqual({ value: 2 });
    expect(readWord('true', type)).toEqual({ value: true });
    expect(readWord('null', type)).toEqual({ value: null });
    expect(readWord('x', type)).toEqual({ value: 'x' });
    expect(readWord('3', type)).toEqual({ expected: 'one of 1, 2, true, null, x', hint: 'did you mean 1?' });
  });

  it('does not fold case when two members differ by case alone', () => {
    expect(readWord('A', scalar([], ['a', 'b']))).toEqual({ value: 'a' });
    expect(readWord('AB', scalar([], ['ab', 'Ab']))).toMatchObject({ expected: 'one of ab, Ab' });
  });

  it('tries the narrowest type first: null, boolean, integer, number, then the word as a string', () => {
    const type = scalar(['string', 'number', 'integer', 'boolean', 'null']);
    expect(readWord('null', type)).toEqual({ value: null });
    expect(readWord('False', type)).toEqual({ value: false });
    expect(readWord('12', type)).toEqual({ value: 12 });
    expect(readWord('1.25', type)).toEqual({ value: 1.25 });
    expect(readWord('12abc', type)).toEqual({ value: '12abc' });
  });
});

describe('readItems', () => {
  it('splits a comma list and reads each item, naming the one that fails', () => {
    expect(readItems('1,2,3', scalar(['integer']))).toEqual([1, 2, 3]);
    expect(readItems('1,,3', scalar(['integer']))).toEqual({ expected: 'an integer', received: '' });
    expect(readItems('', scalar(['string']))).toEqual([]);
  });

  it('takes a JSON array as written, and a word starting with [ that is not one as items', () => {
    expect(readItems('["a,b", "c"]', scalar(['string']))).toEqual(['a,b', 'c']);
    expect(readItems('[draft]', scalar(['string']))).toEqual(['[draft]']);
  });
});
