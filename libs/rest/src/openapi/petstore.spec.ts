import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { JsonSchemaObject } from '#libs/core';
import { basePathOf } from './openapi-servers';
import { readOperations } from './read-operations';
import { toRequestParts } from './request-parts';
import type { RestToolDefinition } from './rest-operation';
import { selectOperations } from './route-selection';
import { mapOperations } from './tool-mapping';

// The real Swagger Petstore 3.0 document, unchanged (test/fixtures/openapi/README.md says where from).
const document = parse(
  readFileSync(join(__dirname, '../../../../test/fixtures/openapi/petstore-3.0.yaml'), 'utf8'),
) as Record<string, unknown>;

function compile(schema: JsonSchemaObject) {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

describe('the Swagger Petstore 3.0 document', () => {
  const read = readOperations(document);
  const mapped = mapOperations(read.operations);
  const tool = (name: string) => mapped.tools.find((t) => t.name === name) as RestToolDefinition;

  it('reads all 19 operations without a problem', () => {
    expect(read.diagnostics).toEqual([]);
    expect(read.operations).toHaveLength(19);
  });

  it('maps every operation but uploadFile (octet-stream body) to a tool of unique name and valid schemas', () => {
    expect(mapped.diagnostics).toEqual([
      {
        severity: 'warning',
        where: 'OpenAPI operation POST /pet/{petId}/uploadImage (uploadFile)',
        problem: 'its request body is application/octet-stream, not JSON; the operation gets no tool',
        fix: 'leave it out of the selection, give it an application/json body, or write an @McpTool for it',
      },
    ]);
    const names = mapped.tools.map((t) => t.name);
    expect(names).toHaveLength(18);
    expect(new Set(names).size).toBe(18);
    expect(names).toEqual(read.operations.map((o) => o.operationId).filter((id) => id !== 'uploadFile'));
    for (const t of mapped.tools) {
      expect(t.inputSchema.type).toBe('object');
      compile(t.inputSchema);
      if (t.outputSchema) {
        expect(t.outputSchema.type).toBe('object');
        compile(t.outputSchema);
      }
    }
  });

  it('findPetsByStatus has a status enum query parameter and wraps its array result', () => {
    const t = tool('findPetsByStatus');
    expect(t.inputSchema).toEqual({
      type: 'object',
      properties: {
        status: {
          type: 'string',
          default: 'available',
          enum: ['available', 'pending', 'sold'],
          description: 'Status values that need to be considered for filter',
        },
      },
    });
    expect(t.arguments).toEqual({ status: { in: 'query', name: 'status' } });
    expect(t.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(t.wrapsResult).toBe(true);
    const validate = compile(t.outputSchema as JsonSchemaObject);
    expect(validate({ result: [{ name: 'doggie', photoUrls: [], category: { id: 1, name: 'Dogs' } }] })).toBe(true);
    expect(validate({ result: [{ name: 'doggie' }] })).toBe(false);
    expect(toRequestParts(t, { status: 'sold' }, basePathOf(document))).toEqual({
      method: 'GET',
      url: '/api/v3/pet/findByStatus?status=sold',
      headers: {},
    });
  });

  it("addPet takes the Pet body's properties flat", () => {
    const t = tool('addPet');
    expect(Object.keys(t.inputSchema.properties ?? {})).toEqual([
      'id',
      'name',
      'category',
      'photoUrls',
      'tags',
      'status',
    ]);
    expect(t.inputSchema.required).toEqual(['name', 'photoUrls']);
    expect(Object.keys(t.inputSchema.$defs as object).sort()).toEqual(['Category', 'Tag']);
    expect(t.description).toBe('Add a new pet to the store.');
    expect(t.title).toBe('Add a new pet to the store');
    expect(t.annotations).toEqual({ readOnlyHint: false });
    const validate = compile(t.inputSchema);
    expect(validate({ name: 'doggie', photoUrls: ['u'], tags: [{ id: 1, name: 't' }], status: 'sold' })).toBe(true);
    expect(validate({ name: 'doggie', photoUrls: ['u'], status: 'lost' })).toBe(false);
    expect(toRequestParts(t, { name: 'doggie', photoUrls: ['u'] })).toEqual({
      method: 'POST',
      url: '/pet',
      headers: { 'content-type': 'application/json' },
      body: { name: 'doggie', photoUrls: ['u'] },
    });
  });

  it('deletePet is destructive and takes the api_key header and the petId path parameter', () => {
    const t = tool('deletePet');
    expect(t.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(t.arguments).toEqual({ api_key: { in: 'header', name: 'api_key' }, petId: { in: 'path', name: 'petId' } });
    expect(t.inputSchema.required).toEqual(['petId']);
    expect(t.outputSchema).toBeUndefined();
    expect(toRequestParts(t, { petId: 7, api_key: 'k' })).toEqual({
      method: 'DELETE',
      url: '/pet/7',
      headers: { api_key: 'k' },
    });
  });

  it('createUsersWithListInput takes its array body as `body`; loginUser wraps its string result', () => {
    expect(tool('createUsersWithListInput').arguments).toEqual({ body: { in: 'body' } });
    expect(tool('loginUser').outputSchema).toEqual({
      type: 'object',
      properties: { result: { type: 'string' } },
      required: ['result'],
    });
  });

  it('keeps tags and the operation in _meta', () => {
    const t = tool('getPetById');
    const meta = t._meta['nest-mcp-host/rest'] as Record<string, unknown>;
    expect(meta).toMatchObject({ method: 'GET', path: '/pet/{petId}', operationId: 'getPetById', tags: ['pet'] });
    expect(meta.operation).toBe(t.operation.source);
    expect((meta.operation as { security: unknown }).security).toEqual([
      { api_key: [] },
      { petstore_auth: ['write:pets', 'read:pets'] },
    ]);
  });

  it('selects by tag and path glob', () => {
    const { selected, unmatched } = selectOperations(read.operations, {
      tags: ['store'],
      paths: ['/user/*'],
      exclude: { operationIds: ['deleteOrder'] },
    });
    expect(selected.map((o) => o.operationId)).toEqual([
      'getInventory',
      'placeOrder',
      'getOrderById',
      'createUsersWithListInput',
      'loginUser',
      'logoutUser',
      'getUserByName',
      'updateUser',
      'deleteUser',
    ]);
    expect(unmatched).toEqual([]);
  });
});
