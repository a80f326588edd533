import { z } from 'zod';
import type { JsonSchemaObject } from '#libs/core';
import { JsonSchemaFactory } from '../schema/json-schema.factory';
import { cliValueTypeOf, isCliFlag } from './cli-value-type';

const of = (schema: unknown, root: JsonSchemaObject = { type: 'object' }) => cliValueTypeOf(schema, root);

describe('cliValueTypeOf', () => {
  it('reads plain JSON types as scalars', () => {
    expect(of({ type: 'string' })).toEqual({ kind: 'scalar', types: ['string'] });
    expect(of({ type: 'integer', minimum: 1 })).toEqual({ kind: 'scalar', types: ['integer'] });
    expect(of({ type: 'number' })).toEqual({ kind: 'scalar', types: ['number'] });
    expect(of({ type: 'boolean' })).toEqual({ kind: 'scalar', types: ['boolean'] });
  });

  it('reads enums and consts as the values a word may equal', () => {
    expect(of({ type: 'string', enum: ['low', 'high'] })).toEqual({
      kind: 'scalar',
      types: [],
      values: ['low', 'high'],
    });
    expect(of({ const: 3 })).toEqual({ kind: 'scalar', types: [], values: [3] });
    expect(of({ enum: [{ a: 1 }] })).toEqual({ kind: 'json' });
  });

  it('reads a type list and anyOf/oneOf of scalars as one scalar', () => {
    expect(of({ type: ['string', 'null'] })).toEqual({ kind: 'scalar', types: ['string', 'null'] });
    expect(of({ anyOf: [{ type: 'integer' }, { type: 'string' }] })).toEqual({
      kind: 'scalar',
      types: ['integer', 'string'],
    });
    expect(of({ oneOf: [{ enum: ['a', 'b'] }, { type: 'null' }] })).toEqual({
      kind: 'scalar',
      types: ['null'],
      values: ['a', 'b'],
    });
  });

  it('takes objects, mixed compositions and object-or-scalar types for JSON values', () => {
    expect(of({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ kind: 'json' });
    expect(of({ anyOf: [{ type: 'string' }, { type: 'object' }] })).toEqual({ kind: 'json' });
    expect(of({ type: ['string', 'object'] })).toEqual({ kind: 'json' });
    expect(of({ allOf: [{ type: 'string' }, { minLength: 2 }] })).toEqual({ kind: 'json' });
    expect(of({ properties: { a: {} } })).toEqual({ kind: 'json' });
  });

  it('reads arrays with their item type; nested arrays items are JSON values', () => {
    expect(of({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } })).toEqual({
      kind: 'array',
      items: { kind: 'scalar', types: [], values: ['x', 'y'] },
    });
    expect(of({ type: ['array', 'null'], items: { type: 'integer' } })).toEqual({
      kind: 'array',
      items: { kind: 'scalar', types: ['integer'] },
    });
    // The same, in the portable spelling the host publishes.
    expect(of({ anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] })).toEqual({
      kind: 'array',
      items: { kind: 'scalar', types: ['integer'] },
    });
    expect(of({ type: 'array', items: { type: 'array', items: { type: 'string' } } })).toEqual({
      kind: 'array',
      items: { kind: 'json' },
    });
    expect(of({ type: 'array' })).toEqual({ kind: 'array', items: { kind: 'any' } });
  });

  it('takes an untyped schema for any value', () => {
    expect(of({})).toEqual({ kind: 'any' });
    expect(of({ description: 'anything' })).toEqual({ kind: 'any' });
    expect(of(true)).toEqual({ kind: 'any' });
  });

  it('follows local $refs and a lone allOf member, and stops at a $ref loop', () => {
    const root: JsonSchemaObject = {
      type: 'object',
      $defs: { Priority: { type: 'string', enum: ['low', 'high'] }, Loop: { $ref: '#/$defs/Loop' } },
    };
    expect(of({ $ref: '#/$defs/Priority' }, root)).toEqual({ kind: 'scalar', types: [], values: ['low', 'high'] });
    expect(of({ allOf: [{ $ref: '#/$defs/Priority' }], description: 'How urgent' }, root)).toEqual({
      kind: 'scalar',
      types: [],
      values: ['low', 'high'],
    });
    expect(of({ $ref: '#/$defs/Loop' }, root)).toEqual({ kind: 'json' });
    expect(of({ $ref: 'https://example.com/schema' }, root)).toEqual({ kind: 'json' });
  });

  it('reads what zod produces: nullable, optional unions, enum arrays, defaults', () => {
    const schema = new JsonSchemaFactory().create(
      z.object({
        assignee: z.string().nullable(),
        limit: z.union([z.number().int(), z.literal('all')]).optional(),
        tags: z.array(z.enum(['vat', 'refund'])),
        dryRun: z.boolean().default(false),
        level: z.enum(['a', 'b']).nullable(),
      }) as never,
    );
    const properties = schema.properties as Record<string, unknown>;
    expect(of(properties.assignee, schema)).toEqual({ kind: 'scalar', types: ['string', 'null'] });
    expect(of(properties.limit, schema)).toEqual({ kind: 'scalar', types: ['integer'], values: ['all'] });
    expect(of(properties.tags, schema)).toEqual({
      kind: 'array',
      items: { kind: 'scalar', types: [], values: ['vat', 'refund'] },
    });
    expect(isCliFlag(of(properties.dryRun, schema))).toBe(true);
    expect(of(properties.level, schema)).toMatchObject({ kind: 'scalar', values: expect.arrayContaining(['a', 'b']) });
  });
});

describe('isCliFlag', () => {
  it('is true for booleans, nullable or not, and false for anything a word must spell out', () => {
    expect(isCliFlag(of({ type: 'boolean' }))).toBe(true);
    expect(isCliFlag(of({ type: ['boolean', 'null'] }))).toBe(true);
    expect(isCliFlag(of({ anyOf: [{ type: 'boolean' }, { type: 'string' }] }))).toBe(false);
    expect(isCliFlag(of({ type: 'string' }))).toBe(false);
    expect(isCliFlag(of({ type: 'array', items: { type: 'boolean' } }))).toBe(false);
  });
});
