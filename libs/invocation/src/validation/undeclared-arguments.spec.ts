import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { z } from 'zod';
import { JsonSchemaFactory } from '#libs/catalog';
import type { JsonSchemaObject, SchemaSource } from '#libs/core';
import { compileUndeclaredArguments } from './undeclared-arguments';

class LineDto {
  @IsString()
  sku!: string;
}

class OrderDto {
  @IsString()
  customerId!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines?: LineDto[];
}

const schemas = new JsonSchemaFactory();
const refuse = (source: SchemaSource) => compileUndeclaredArguments(schemas.create(source), 'refuse')!;

describe('compileUndeclaredArguments', () => {
  const sources: [string, SchemaSource][] = [
    ['a DTO', OrderDto],
    ['a zod schema', z.object({ customerId: z.string(), lines: z.array(z.object({ sku: z.string() })).optional() })],
    [
      'a JSON Schema',
      {
        type: 'object',
        properties: {
          customerId: { type: 'string' },
          lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
        },
      },
    ],
  ];

  it.each(sources)('refuses undeclared properties of %s, at every level, naming each', (_kind, source) => {
    const check = refuse(source);
    expect(check({ customerId: 'C-1', lines: [{ sku: 'a' }] })).toEqual({
      value: { customerId: 'C-1', lines: [{ sku: 'a' }] },
      issues: undefined,
    });
    expect(check({ customerId: 'C-1', id: 'T-2008', lines: [{ sku: 'a', price: 0 }] })).toEqual({
      value: { customerId: 'C-1', lines: [{ sku: 'a' }] },
      issues: [
        'id: is not an accepted argument (accepted: customerId, lines)',
        'lines[0].price: is not an accepted argument (accepted: sku)',
      ],
    });
  });

  it('strips them instead when asked, without touching the value it was given', () => {
    const check = compileUndeclaredArguments(schemas.create(OrderDto), 'strip')!;
    const sent = { customerId: 'C-1', id: 'T-2008', lines: [{ sku: 'a', price: 0 }] };
    expect(check(sent)).toEqual({ value: { customerId: 'C-1', lines: [{ sku: 'a' }] }, issues: undefined });
    expect(sent).toEqual({ customerId: 'C-1', id: 'T-2008', lines: [{ sku: 'a', price: 0 }] });
  });

  it('hands back the very same object when nothing is undeclared (no copy on the hot path)', () => {
    const sent = { customerId: 'C-1', lines: [{ sku: 'a' }] };
    expect(refuse(OrderDto)(sent).value).toBe(sent);
  });

  it('leaves open what the schema opens on purpose, and does nothing when allowed', () => {
    const open: JsonSchemaObject[] = [
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } },
      { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x-': {} } },
      { type: 'object', anyOf: [{ properties: { a: {} } }, { properties: { b: {} } }] },
      { type: 'object' },
    ];
    for (const schema of open)
      expect(compileUndeclaredArguments(schema, 'refuse')?.({ a: 'x', extra: 1 }).issues).toBeUndefined();
    expect(compileUndeclaredArguments(schemas.create(OrderDto), 'allow')).toBeUndefined();
  });

  it('refuses every argument of a tool that takes none, and follows $ref and allOf', () => {
    expect(compileUndeclaredArguments({ type: 'object', properties: {} }, 'refuse')!({ x: 1 })).toEqual({
      value: {},
      issues: ['x: is not an accepted argument (none are accepted here)'],
    });
    const schema: JsonSchemaObject = {
      type: 'object',
      allOf: [{ $ref: '#/$defs/Base' }, { properties: { b: { type: 'string' } } }],
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: {
        Base: { properties: { a: { type: 'string' } } },
        Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } },
      },
    };
    expect(
      compileUndeclaredArguments(schema, 'refuse')!({ a: '1', b: '2', node: { child: { child: { oops: true } } } }),
    ).toMatchObject({
      issues: ['node.child.child.oops: is not an accepted argument (accepted: child)'],
    });
  });
});
