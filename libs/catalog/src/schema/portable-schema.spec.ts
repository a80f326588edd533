import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { z } from 'zod';
import type { JsonSchemaObject } from '#libs/core';
import { JsonSchemaFactory } from './json-schema.factory';
import { portableSchema } from './portable-schema';

/** Every `type` list in a schema, by path. */
function typeLists(node: unknown, path = ''): string[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((item, index) => typeLists(item, `${path}/${index}`));
  const own = Array.isArray((node as { type?: unknown }).type) ? [path] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => typeLists(value, `${path}/${key}`))];
}

const SAMPLES: unknown[] = [
  null,
  'a',
  'abc',
  '',
  3,
  3.5,
  -1,
  true,
  false,
  [],
  ['x'],
  [1, 2],
  {},
  { id: 'x' },
  { id: 1 },
];

/** The original and its portable form accept exactly the same samples. */
function expectSameValues(original: JsonSchemaObject, portable: JsonSchemaObject): void {
  const ajv = new Ajv2020({ strict: false });
  const before = ajv.compile(original);
  const after = ajv.compile(portable);
  expect(SAMPLES.map((value) => after(value))).toEqual(SAMPLES.map((value) => before(value)));
}

describe('portableSchema', () => {
  it('splits a type list into anyOf branches, annotations outside, each keyword in the branch of its type', () => {
    const original = {
      description: 'Who works the ticket',
      default: null,
      type: ['string', 'null'],
      minLength: 1,
      format: 'email',
    };
    expect(portableSchema(original)).toEqual({
      description: 'Who works the ticket',
      default: null,
      anyOf: [{ type: 'string', minLength: 1, format: 'email' }, { type: 'null' }],
    });
    expectSameValues(original, portableSchema(original));
  });

  it('gives an object its properties and required in its own branch (Gemini refuses required elsewhere)', () => {
    const original = {
      type: ['object', 'array', 'null'],
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
      items: { type: 'string' },
      maxItems: 1,
    };
    expect(portableSchema(original)).toEqual({
      anyOf: [
        { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
        { type: 'array', items: { type: 'string' }, maxItems: 1 },
        { type: 'null' },
      ],
    });
    expectSameValues(original, portableSchema(original));
  });

  it('shares an enum out among the branches and drops a branch no value of the enum can take', () => {
    expect(portableSchema({ type: ['string', 'null'], enum: ['open', 'closed', null] })).toEqual({
      anyOf: [{ type: 'string', enum: ['open', 'closed'] }, { type: 'null' }],
    });
    const notNull = { type: ['string', 'null'], enum: ['open', 'closed'] };
    expect(portableSchema(notNull)).toEqual({ type: 'string', enum: ['open', 'closed'] });
    expectSameValues(notNull, portableSchema(notNull));
    expect(portableSchema({ type: ['integer', 'null'], const: 3 })).toEqual({ type: 'integer', const: 3 });
  });

  it('keeps an anyOf the node already has, under allOf', () => {
    const original = { type: ['string', 'integer'], anyOf: [{ minLength: 2 }, { minimum: 0 }] };
    expect(portableSchema(original)).toEqual({
      allOf: [{ anyOf: [{ minLength: 2 }, { minimum: 0 }] }],
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
    expectSameValues(original, portableSchema(original));
  });

  it('reaches every subschema (properties, items, $defs, anyOf …), copies only what changes, never modifies the input', () => {
    const unchanged = { type: 'object', properties: { id: { type: 'string' } } };
    const original = {
      type: 'object',
      properties: {
        untouched: unchanged,
        list: { type: 'array', items: { type: ['number', 'null'] } },
        ref: { $ref: '#/$defs/Note' },
      },
      $defs: { Note: { type: 'object', properties: { text: { type: ['string', 'null'] } } } },
    };
    const snapshot = structuredClone(original);
    const portable = portableSchema(original);
    expect(typeLists(portable)).toEqual([]);
    expect(original).toEqual(snapshot);
    expect(portable.properties.untouched).toBe(unchanged);
    expect(portable.properties.list).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'number' }, { type: 'null' }] },
    });
    expect(portableSchema(unchanged)).toBe(unchanged);
  });

  it('keeps a property named __proto__ a property', () => {
    const original = JSON.parse('{"type":"object","properties":{"__proto__":{"type":["string","null"]}}}') as {
      properties: Record<string, unknown>;
    };
    const portable = portableSchema(original);
    expect(Object.getPrototypeOf(portable.properties)).toBe(Object.prototype);
    expect(Object.keys(portable.properties)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(portable.properties, '__proto__')?.value).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });
});

describe('JsonSchemaFactory publishes generated schemas in the portable spelling', () => {
  it('zod: nullable fields, unions of primitives and nullable objects, with no type list anywhere', () => {
    const source = z.object({
      assignee: z.string().nullable().describe('null while unassigned'),
      resolution: z.string().max(200).nullable().optional(),
      limit: z.union([z.number(), z.string()]),
      owner: z.object({ id: z.string() }).nullable(),
    });
    const schema = new JsonSchemaFactory().create(source as never);
    expect(typeLists(schema)).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        assignee: { description: 'null while unassigned', anyOf: [{ type: 'string' }, { type: 'null' }] },
        resolution: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
        limit: { anyOf: [{ type: 'number' }, { type: 'string' }] },
        owner: {
          anyOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, { type: 'null' }],
        },
      },
      // Optional stays optional: simply not required.
      required: ['assignee', 'limit', 'owner'],
    });
  });

  it('a DTO whose property declares a type list (@JSONSchema) is published with anyOf too', () => {
    class Note {
      @IsString() text!: string;
    }
    class NoteDto {
      @IsOptional() @IsString() @JSONSchema({ type: ['string', 'null'] as never }) label?: string | null;
      @ValidateNested() @Type(() => Note) note!: Note;
    }
    const schema = new JsonSchemaFactory().create(NoteDto);
    expect(typeLists(schema)).toEqual([]);
    expect((schema.properties as Record<string, unknown>).label).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });

  it('a JSON Schema is published as its author wrote it', () => {
    const raw = { type: 'object', properties: { a: { type: ['string', 'null'] } } };
    expect(new JsonSchemaFactory().create(raw)).toBe(raw);
  });
});
