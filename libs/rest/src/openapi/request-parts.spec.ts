import type { OpenApiDocument } from './openapi-document';
import { readOperations } from './read-operations';
import { toRequestParts } from './request-parts';
import type { RestToolDefinition } from './rest-operation';
import { RestRequestError } from './rest-request.error';
import { mapOperations } from './tool-mapping';

/** The tool of the only operation of a one-path document. */
function toolOf(path: string, method: string, operation: Record<string, unknown>): RestToolDefinition {
  const { operations } = readOperations({
    openapi: '3.0.3',
    paths: { [path]: { [method]: operation } },
  } as OpenApiDocument);
  return mapOperations(operations).tools[0];
}

const q = (name: string, schema: unknown, extra: object = {}) => ({ name, in: 'query', schema, ...extra });
const strings = { type: 'array', items: { type: 'string' } };

describe('toRequestParts', () => {
  it('fills the path template, encoding each value, and puts the base path first', () => {
    const tool = toolOf('/tickets/{id}/files/{name}', 'get', {
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
      ],
    });
    expect(toRequestParts(tool, { id: 'T/1 ?', name: 'ä#b', ignored: 1 }, '/api/')).toEqual({
      method: 'GET',
      url: '/api/tickets/T%2F1%20%3F/files/%C3%A4%23b',
      headers: {},
    });
  });

  it('serializes path arrays and the label and matrix styles', () => {
    const tool = toolOf('/a/{ids}/b/{l}/c/{m}/d/{me}', 'get', {
      parameters: [
        { name: 'ids', in: 'path', required: true, schema: strings },
        { name: 'l', in: 'path', required: true, style: 'label', schema: strings },
        { name: 'm', in: 'path', required: true, style: 'matrix', schema: strings },
        { name: 'me', in: 'path', required: true, style: 'matrix', explode: true, schema: strings },
      ],
    });
    expect(toRequestParts(tool, { ids: ['x', 'y z'], l: ['1', '2'], m: ['3', '4'], me: ['5', '6'] }).url).toBe(
      '/a/x,y%20z/b/.1,2/c/;m=3,4/d/;me=5;me=6',
    );
  });

  it('throws an error naming a missing path parameter', () => {
    const tool = toolOf('/tickets/{id}', 'get', {
      operationId: 'getTicket',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    });
    expect(() => toRequestParts(tool, {})).toThrow(RestRequestError);
    expect(() => toRequestParts(tool, { id: null })).toThrow(
      'Tool "getTicket" needs the path parameter "id" for GET /tickets/{id}',
    );
  });

  it('names the argument of a missing path parameter renamed by a clash', () => {
    const tool = toolOf('/t/{id}', 'put', {
      operationId: 'putT',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
      },
    });
    expect(() => toRequestParts(tool, { id: 'body id' })).toThrow(
      'Tool "putT" needs the path parameter "id" (argument "path_id") for PUT /t/{id}',
    );
    expect(toRequestParts(tool, { id: 'body id', path_id: 'T-1' })).toEqual({
      method: 'PUT',
      url: '/t/T-1',
      headers: { 'content-type': 'application/json' },
      body: { id: 'body id' },
    });
  });

  it('serializes query parameters per style and explode', () => {
    const obj = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
    const tool = toolOf('/s', 'get', {
      parameters: [
        q('tags', strings),
        q('ids', strings, { explode: false }),
        q('sp', strings, { style: 'spaceDelimited', explode: false }),
        q('pipe', strings, { style: 'pipeDelimited', explode: false }),
        q('form', obj),
        q('formFlat', obj, { explode: false }),
        q('filter', { type: 'object' }, { style: 'deepObject', explode: true }),
        q('n', { type: 'integer' }),
        q('flag', { type: 'boolean' }),
        q('none', { type: 'string' }),
        q('empty', strings),
      ],
    });
    const parts = toRequestParts(tool, {
      tags: ['a b', 'c&d'],
      ids: ['1', '2,3'],
      sp: ['x', 'y'],
      pipe: ['x', 'y'],
      form: { a: 'v', b: 2 },
      formFlat: { a: 'v', b: 2 },
      filter: { status: 'open', owner: { id: 7 }, labels: ['p', 'q'] },
      n: 0,
      flag: false,
      none: null,
      empty: [],
    });
    expect(parts.url.split('?')[1].split('&')).toEqual([
      'tags=a%20b',
      'tags=c%26d',
      'ids=1,2%2C3',
      'sp=x%20y',
      'pipe=x|y',
      'a=v',
      'b=2',
      'formFlat=a,v,b,2',
      'filter[status]=open',
      'filter[owner][id]=7',
      'filter[labels]=p',
      'filter[labels]=q',
      'n=0',
      'flag=false',
    ]);
    expect(toRequestParts(tool, {}).url).toBe('/s');
  });

  it('sends header values as strings under lower-case names', () => {
    const tool = toolOf('/h', 'get', {
      parameters: [
        { name: 'X-Count', in: 'header', schema: { type: 'integer' } },
        { name: 'X-List', in: 'header', schema: strings },
        { name: 'X-Absent', in: 'header', schema: { type: 'string' } },
      ],
    });
    expect(toRequestParts(tool, { 'X-Count': 3, 'X-List': ['a', 'b'] }).headers).toEqual({
      'x-count': '3',
      'x-list': 'a,b',
    });
  });

  it('builds the JSON body from the body properties, with its content-type', () => {
    const tool = toolOf('/t', 'post', {
      requestBody: {
        required: true,
        content: {
          'application/vnd.api+json': {
            schema: { type: 'object', properties: { subject: { type: 'string' }, body: { type: 'string' } } },
          },
        },
      },
    });
    expect(toRequestParts(tool, { subject: 's', body: 'b' })).toEqual({
      method: 'POST',
      url: '/t',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: { subject: 's', body: 'b' },
    });
    // A required object body goes out even when no property was given.
    expect(toRequestParts(tool, {}).body).toEqual({});
  });

  it('keeps a body property named like an Object.prototype member (__proto__, constructor) as a property', () => {
    // As a document parsed from JSON holds them (an object literal's `__proto__:` would set a prototype).
    const properties = JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "string"}}') as object;
    const tool = toolOf('/t', 'post', {
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties } } } },
    });
    const args = JSON.parse('{"__proto__": "p", "constructor": "c"}') as Record<string, unknown>;
    const { body } = toRequestParts(tool, args);
    expect(JSON.stringify(body)).toBe('{"__proto__":"p","constructor":"c"}');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
  });

  it('sends an optional body only when a property was given', () => {
    const tool = toolOf('/t', 'patch', {
      requestBody: {
        content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } },
      },
    });
    expect(toRequestParts(tool, {})).toEqual({ method: 'PATCH', url: '/t', headers: {} });
    expect(toRequestParts(tool, { a: 'x' }).body).toEqual({ a: 'x' });
  });

  it('sends the `body` argument as the whole body of a non-object body', () => {
    const tool = toolOf('/t/bulk', 'post', {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
      },
    });
    expect(toRequestParts(tool, { body: ['a', 'b'] })).toEqual({
      method: 'POST',
      url: '/t/bulk',
      headers: { 'content-type': 'application/json' },
      body: ['a', 'b'],
    });
    expect(toRequestParts(tool, {}).body).toBeUndefined();
  });
});
