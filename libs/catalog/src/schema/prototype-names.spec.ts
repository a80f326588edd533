import { prototypeNamedProperties } from './prototype-names';

describe('prototypeNamedProperties', () => {
  it('finds the names of members of every object at any depth, once each', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"id":{"type":"string"},"constructor":{"type":"integer"},' +
        '"items":{"type":"array","items":{"type":"object","properties":{"__proto__":{},"toString":{}}}}},' +
        '"$defs":{"Note":{"type":"object","properties":{"valueOf":{},"constructor":{}}}}}',
    ) as unknown;
    expect(prototypeNamedProperties(schema).sort()).toEqual(['__proto__', 'constructor', 'toString', 'valueOf']);
  });

  it('finds none in an ordinary schema', () => {
    expect(prototypeNamedProperties({ type: 'object', properties: { ticketId: { type: 'string' } } })).toEqual([]);
  });
});
