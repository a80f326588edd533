import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchemaObject } from '#libs/core';
import type { OpenApiDocument } from './openapi-document';
import { readOperations } from './read-operations';
import type { RestToolDefinition } from './rest-operation';
import { descriptionOf, mapOperations, type ToolMappingOptions } from './tool-mapping';

function compile(schema: JsonSchemaObject) {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

const schemas = {
  Ticket: {
    type: 'object',
    required: ['id', 'subject'],
    properties: {
      id: { type: 'string', readOnly: true },
      subject: { type: 'string', description: 'One line', maxLength: 120 },
      priority: { type: 'string', enum: ['low', 'high'], default: 'low' },
      owner: { $ref: '#/components/schemas/User' },
    },
  },
  User: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
};

/** Maps one operation of a one-path document; every schema produced is compiled. */
function mapOne(
  path: string,
  method: string,
  operation: Record<string, unknown>,
  options?: ToolMappingOptions,
  pathParameters?: unknown[],
) {
  const document = {
    openapi: '3.0.3',
    paths: { [path]: { ...(pathParameters ? { parameters: pathParameters } : {}), [method]: operation } },
    components: { schemas },
  } as OpenApiDocument;
  const read = readOperations(document);
  expect(read.diagnostics).toEqual([]);
  const { tools, diagnostics } = mapOperations(read.operations, options);
  for (const tool of tools) {
    compile(tool.inputSchema);
    if (tool.outputSchema) compile(tool.outputSchema);
  }
  return { tool: tools[0] as RestToolDefinition | undefined, diagnostics };
}

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const p = (name: string, where: string, schema: unknown = { type: 'string' }, extra: object = {}) => ({
  name,
  in: where,
  schema,
  ...(where === 'path' ? { required: true } : {}),
  ...extra,
});

describe('mapOperations: input schema', () => {
  it('flattens path, query and header params and the object body, carrying descriptions, defaults, enums, formats', () => {
    const { tool, diagnostics } = mapOne('/tickets/{ticketId}', 'put', {
      operationId: 'updateTicket',
      parameters: [
        p('ticketId', 'path', { type: 'string', format: 'uuid' }, { description: 'The ticket' }),
        p('notify', 'query', { type: 'boolean', default: true }),
        p('X-Request-Id', 'header', { type: 'string' }, { required: true }),
      ],
      requestBody: { required: true, ...json({ $ref: '#/components/schemas/Ticket' }) },
    });
    expect(diagnostics).toEqual([]);
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        subject: { type: 'string', description: 'One line', maxLength: 120 },
        priority: { type: 'string', enum: ['low', 'high'], default: 'low' },
        owner: { $ref: '#/$defs/User' },
        ticketId: { type: 'string', format: 'uuid', description: 'The ticket' },
        notify: { type: 'boolean', default: true },
        'X-Request-Id': { type: 'string' },
      },
      // readOnly `id` is gone from the input, and so from `required`.
      required: ['subject', 'ticketId', 'X-Request-Id'],
      $defs: {
        User: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
      },
    });
    expect(tool?.arguments).toEqual({
      subject: { in: 'body', name: 'subject' },
      priority: { in: 'body', name: 'priority' },
      owner: { in: 'body', name: 'owner' },
      ticketId: { in: 'path', name: 'ticketId' },
      notify: { in: 'query', name: 'notify' },
      'X-Request-Id': { in: 'header', name: 'X-Request-Id' },
    });
  });

  it('does not require body properties when the body is optional', () => {
    const { tool } = mapOne('/tickets', 'post', { requestBody: json({ $ref: '#/components/schemas/Ticket' }) });
    expect(tool?.inputSchema.required).toBeUndefined();
  });

  it('flattens an allOf of object schemas', () => {
    const { tool } = mapOne('/tickets', 'post', {
      requestBody: {
        required: true,
        ...json({
          allOf: [
            { $ref: '#/components/schemas/User' },
            { type: 'object', required: ['tag'], properties: { tag: { type: 'string' } } },
          ],
        }),
      },
    });
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['name', 'secret', 'tag']);
    expect(tool?.inputSchema.required).toEqual(['tag']);
  });

  it('prefixes a parameter clashing with a body property or a parameter elsewhere with its location', () => {
    const { tool } = mapOne(
      '/tickets/{subject}',
      'patch',
      {
        parameters: [p('owner', 'query'), p('X-Trace', 'header'), p('x-trace', 'query'), p('notify', 'query')],
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Ticket' }) },
      },
      undefined,
      [p('subject', 'path')],
    );
    expect(tool?.arguments).toEqual({
      subject: { in: 'body', name: 'subject' },
      priority: { in: 'body', name: 'priority' },
      owner: { in: 'body', name: 'owner' },
      path_subject: { in: 'path', name: 'subject' },
      query_owner: { in: 'query', name: 'owner' },
      'X-Trace': { in: 'header', name: 'X-Trace' },
      'x-trace': { in: 'query', name: 'x-trace' },
      notify: { in: 'query', name: 'notify' },
    });
    expect(tool?.inputSchema.required).toEqual(['subject', 'path_subject']);
  });

  it('prefixes both parameters of one name in two locations (header names lower-cased)', () => {
    const { tool } = mapOne('/t/{Trace-Id}', 'get', {
      parameters: [p('Trace-Id', 'path'), p('Trace-Id', 'header'), p('Trace-Id', 'query')],
    });
    expect(tool?.arguments).toEqual({
      path_Trace_Id: { in: 'path', name: 'Trace-Id' },
      header_trace_id: { in: 'header', name: 'Trace-Id' },
      query_Trace_Id: { in: 'query', name: 'Trace-Id' },
    });
  });

  it('makes a non-object body one `body` property, its description kept', () => {
    const { tool } = mapOne('/tickets/bulk', 'post', {
      parameters: [p('body', 'query')],
      requestBody: {
        required: true,
        description: 'Tickets to create',
        ...json({ type: 'array', items: { $ref: '#/components/schemas/User' } }),
      },
    });
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        body: { type: 'array', items: { $ref: '#/$defs/User' }, description: 'Tickets to create' },
        query_body: { type: 'string' },
      },
      required: ['body'],
      $defs: {
        User: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
      },
    });
    expect(tool?.arguments).toEqual({ body: { in: 'body' }, query_body: { in: 'query', name: 'body' } });
  });

  it('leaves out Authorization, Cookie, hop-by-hop headers and cookie params, with a warning each', () => {
    const { tool, diagnostics } = mapOne('/t', 'get', {
      operationId: 'listT',
      parameters: [
        p('Authorization', 'header', { type: 'string' }, { required: true }),
        p('Connection', 'header'),
        p('session', 'cookie'),
        p('host', 'query'),
        p('X-Forwarded-For', 'header'),
      ],
    });
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['host']);
    expect(tool?.inputSchema.required).toBeUndefined();
    expect(diagnostics.map((d) => [d.severity, d.where, d.problem])).toEqual([
      [
        'warning',
        'OpenAPI operation GET /t (listT)',
        "its header parameter `Authorization` is not one a tool may set; it is left out of the tool's arguments",
      ],
      [
        'warning',
        'OpenAPI operation GET /t (listT)',
        "its header parameter `Connection` is not one a tool may set; it is left out of the tool's arguments",
      ],
      [
        'warning',
        'OpenAPI operation GET /t (listT)',
        "its cookie parameter `session` is not one a tool may set; it is left out of the tool's arguments",
      ],
      [
        'warning',
        'OpenAPI operation GET /t (listT)',
        "its header parameter `X-Forwarded-For` is not one a tool may set; it is left out of the tool's arguments",
      ],
    ]);
  });

  it('gives an operation whose body is not JSON no tool, with a warning naming it', () => {
    const { tool, diagnostics } = mapOne('/files', 'post', {
      operationId: 'upload',
      requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } },
    });
    expect(tool).toBeUndefined();
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        where: 'OpenAPI operation POST /files (upload)',
        problem: 'its request body is multipart/form-data, not JSON; the operation gets no tool',
        fix: 'leave it out of the selection, give it an application/json body, or write an @McpTool for it',
      },
    ]);
  });

  it('reports a clash the location prefix cannot solve and gives the operation no tool', () => {
    const { tool, diagnostics } = mapOne('/t', 'post', {
      parameters: [p('id', 'query')],
      requestBody: json({ type: 'object', properties: { id: { type: 'string' }, query_id: { type: 'string' } } }),
    });
    expect(tool).toBeUndefined();
    expect(diagnostics.map((d) => [d.severity, d.problem])).toEqual([
      [
        'error',
        'its query parameter `id` would be the argument `query_id`, which is taken; the operation gets no tool',
      ],
    ]);
  });
});

describe('mapOperations: output schema', () => {
  it('keeps an object response (its root $ref inlined) and drops writeOnly properties', () => {
    const { tool } = mapOne('/me', 'get', { responses: { '200': json({ $ref: '#/components/schemas/User' }) } });
    expect(tool?.outputSchema).toEqual({ type: 'object', properties: { name: { type: 'string' } } });
    expect(tool?.wrapsResult).toBe(false);
  });

  it('wraps a non-object response as { result } and keeps the $defs it needs', () => {
    const { tool } = mapOne('/users', 'get', {
      responses: { '200': json({ type: 'array', items: { $ref: '#/components/schemas/User' } }) },
    });
    expect(tool?.outputSchema).toEqual({
      type: 'object',
      properties: { result: { type: 'array', items: { $ref: '#/$defs/User' } } },
      required: ['result'],
      $defs: { User: { type: 'object', properties: { name: { type: 'string' } } } },
    });
    expect(tool?.wrapsResult).toBe(true);
  });

  it('takes the first 2xx JSON response: 200, 201, then 2XX; never default', () => {
    const out = (responses: Record<string, unknown>) => mapOne('/x', 'post', { responses }).tool?.outputSchema;
    const obj = (title: string) => json({ type: 'object', title });
    expect(out({ '2XX': obj('range'), '201': obj('201'), '200': obj('200') })?.title).toBe('200');
    expect(out({ '2XX': obj('range'), '201': obj('201'), '200': { description: 'empty' } })?.title).toBe('201');
    expect(out({ '2XX': obj('range'), '400': obj('bad') })?.title).toBe('range');
    expect(out({ default: obj('default'), '204': { description: 'none' } })).toBeUndefined();
  });
});

describe('mapOperations: annotations, description, title, _meta', () => {
  it.each([
    ['get', { readOnlyHint: true, destructiveHint: false }],
    ['head', { readOnlyHint: true, destructiveHint: false }],
    ['delete', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['put', { readOnlyHint: false, idempotentHint: true }],
    ['post', { readOnlyHint: false }],
    ['patch', { readOnlyHint: false }],
  ])('%s → %j', (method, annotations) => {
    expect(mapOne('/x', method, {}).tool?.annotations).toEqual(annotations);
  });

  it('lets x-mcp-annotations win over the method, and the options over both', () => {
    const operation = {
      operationId: 'close',
      'x-mcp-annotations': { destructiveHint: false, openWorldHint: 'no', title: 'Close' },
    };
    expect(mapOne('/x', 'delete', operation).tool?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      title: 'Close',
    });
    const options = { annotations: { close: { destructiveHint: true, openWorldHint: true } } };
    expect(mapOne('/x', 'delete', operation, options).tool?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
      title: 'Close',
    });
    expect(
      mapOne('/x', 'post', {}, { annotations: { 'POST /x': { idempotentHint: true } } }).tool?.annotations,
    ).toEqual({
      readOnlyHint: false,
      idempotentHint: true,
    });
  });

  it('joins summary and description without repeating, else names the method and path', () => {
    const d = (summary?: string, description?: string) =>
      descriptionOf({
        method: 'get',
        path: '/x/{id}',
        summary,
        description,
        tags: [],
        parameters: [],
        responses: [],
        source: {},
      });
    expect(d('Find pet.', 'Returns a single pet.')).toBe('Find pet.\n\nReturns a single pet.');
    expect(d('Add a pet.', 'Add a pet.')).toBe('Add a pet.');
    expect(d('Add a pet', 'Add a pet to the store.')).toBe('Add a pet to the store.');
    expect(d('Get', 'Getting started.')).toBe('Get\n\nGetting started.');
    expect(d(undefined, 'Only this')).toBe('Only this');
    expect(d('Only summary', '  ')).toBe('Only summary');
    expect(d()).toBe('GET /x/{id}');
  });

  it('takes a short one-line summary as title, and keeps tags and the operation in _meta', () => {
    const operation = { operationId: 'getT', summary: 'Get a ticket.', tags: ['tickets'], 'x-extra': 1 };
    const { tool } = mapOne('/t', 'get', operation);
    expect(tool?.name).toBe('getT');
    expect(tool?.title).toBe('Get a ticket');
    expect(tool?._meta).toEqual({
      'nest-mcp-host/rest': { method: 'GET', path: '/t', operationId: 'getT', tags: ['tickets'], operation },
    });
    expect(mapOne('/t', 'get', { summary: 'x'.repeat(65) }).tool?.title).toBeUndefined();
  });
});
