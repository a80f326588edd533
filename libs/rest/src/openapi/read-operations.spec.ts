import type { OpenApiDocument } from './openapi-document';
import { basePathOf, serverUrlOf } from './openapi-servers';
import { readOperations } from './read-operations';

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

describe('readOperations', () => {
  it('refuses a Swagger 2.0 document, naming the version and the fix', () => {
    const { operations, diagnostics } = readOperations({ swagger: '2.0', paths: { '/a': { get: {} } } });
    expect(operations).toEqual([]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        where: 'OpenAPI document',
        problem: 'is Swagger 2.0 (`swagger: "2.0"`); only OpenAPI 3.0.x and 3.1.x documents are read',
        fix: expect.stringContaining('convert it to OpenAPI 3'),
      },
    ]);
  });

  it.each([
    [{ openapi: '4.0.0' }, 'is OpenAPI 4.0.0; only OpenAPI 3.0.x and 3.1.x documents are read'],
    [{ info: {} }, 'has no `openapi` version field; only OpenAPI 3.0.x and 3.1.x documents are read'],
    ['openapi: 3.0.0', 'is not an object'],
  ])('refuses %j', (document, problem) => {
    const { operations, diagnostics } = readOperations(document);
    expect(operations).toEqual([]);
    expect(diagnostics.map((d) => d.problem)).toEqual([problem]);
  });

  it('reads 3.0 and 3.1 documents in document order, methods in OpenAPI order', () => {
    for (const openapi of ['3.0.3', '3.1.0']) {
      const { operations, diagnostics } = readOperations({
        openapi,
        paths: {
          '/b': { post: { operationId: 'createB' }, get: { operationId: 'listB', tags: ['b'], summary: 'List' } },
          '/a': { delete: { operationId: 'dropA', deprecated: true } },
        },
      });
      expect(diagnostics).toEqual([]);
      expect(operations.map((o) => `${o.method} ${o.path} ${o.operationId}`)).toEqual([
        'get /b listB',
        'post /b createB',
        'delete /a dropA',
      ]);
      expect(operations[0]).toMatchObject({ tags: ['b'], summary: 'List', parameters: [], responses: [] });
      expect(operations[2].deprecated).toBe(true);
    }
  });

  it('merges path-item parameters with the operation ones, the operation winning by name and location', () => {
    const { operations } = readOperations({
      openapi: '3.0.3',
      paths: {
        '/t/{id}': {
          parameters: [
            idParam,
            { name: 'limit', in: 'query', description: 'from the path item', schema: { type: 'integer' } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          ],
          get: {
            parameters: [
              {
                name: 'limit',
                in: 'query',
                description: 'from the operation',
                schema: { type: 'integer', maximum: 50 },
              },
              { name: 'limit', in: 'header', schema: { type: 'string' } },
              { name: 'x-trace', in: 'header', description: 'lower case, same header', schema: { type: 'string' } },
            ],
          },
        },
      },
    });
    expect(operations[0].parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'from the operation',
        schema: { type: 'integer', maximum: 50 },
      },
      {
        name: 'x-trace',
        in: 'header',
        required: false,
        description: 'lower case, same header',
        schema: { type: 'string' },
      },
      { name: 'limit', in: 'header', required: false, schema: { type: 'string' } },
    ]);
  });

  it('resolves local $refs to parameters, request bodies, responses and schemas (JSON pointer escapes too)', () => {
    const document: OpenApiDocument = {
      openapi: '3.0.3',
      paths: {
        '/t/{id}': {
          put: {
            operationId: 'put',
            parameters: [{ $ref: '#/components/parameters/Id' }, { $ref: '#/components/parameters/Odd~1name~0x' }],
            requestBody: { $ref: '#/components/requestBodies/Ticket' },
            responses: { '200': { $ref: '#/components/responses/Ok' } },
          },
        },
      },
      components: {
        parameters: {
          Id: { $ref: '#/components/parameters/RealId' },
          RealId: { name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/Id' } },
          'Odd/name~x': { name: 'full', in: 'query', schema: { type: 'boolean', default: false } },
        },
        requestBodies: {
          Ticket: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
          },
        },
        responses: {
          Ok: {
            description: 'the ticket',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
          },
        },
        schemas: {
          Id: { type: 'string', pattern: '^T-' },
          Ticket: { type: 'object', properties: { id: { $ref: '#/components/schemas/Id' } } },
        },
      },
    };
    const { operations, diagnostics } = readOperations(document);
    expect(diagnostics).toEqual([]);
    const [operation] = operations;
    expect(operation.parameters.map((p) => [p.name, p.in, p.schema])).toEqual([
      ['id', 'path', { $ref: '#/$defs/Id', $defs: { Id: { type: 'string', pattern: '^T-' } } }],
      ['full', 'query', { type: 'boolean', default: false }],
    ]);
    expect(operation.requestBody).toEqual({
      required: true,
      contentType: 'application/json',
      schema: {
        $ref: '#/$defs/Ticket',
        $defs: {
          Ticket: { type: 'object', properties: { id: { $ref: '#/$defs/Id' } } },
          Id: { type: 'string', pattern: '^T-' },
        },
      },
    });
    expect(operation.responses).toEqual([
      {
        status: '200',
        description: 'the ticket',
        contentType: 'application/json',
        schema: operation.requestBody?.schema,
      },
    ]);
    expect(operation.source).toBe(document.paths?.['/t/{id}'].put);
  });

  it('reports external and dangling refs naming the operation, and keeps the operation', () => {
    const { operations, diagnostics } = readOperations({
      openapi: '3.1.0',
      paths: {
        '/t': {
          post: {
            operationId: 'createTicket',
            parameters: [{ $ref: 'common.yaml#/parameters/Page' }, { $ref: '#/components/parameters/Nope' }],
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Ghost' } } },
            },
            responses: { '201': { $ref: '#/components/responses/Gone' } },
          },
        },
      },
    });
    expect(operations).toHaveLength(1);
    expect(operations[0].parameters).toEqual([]);
    expect(operations[0].requestBody?.schema).toEqual({});
    expect(diagnostics.map((d) => [d.severity, d.where, d.problem])).toEqual([
      [
        'error',
        'OpenAPI operation POST /t (createTicket)',
        "a parameter's `$ref: common.yaml#/parameters/Page` points outside the document (external references are not followed); the parameter is left out",
      ],
      [
        'error',
        'OpenAPI operation POST /t (createTicket)',
        "a parameter's `$ref: #/components/parameters/Nope` points at nothing in the document; the parameter is left out",
      ],
      [
        'error',
        'OpenAPI operation POST /t (createTicket)',
        'the request body: `$ref: #/components/schemas/Ghost` points at nothing in the document; that part of the schema accepts anything',
      ],
      [
        'error',
        'OpenAPI operation POST /t (createTicket)',
        "response 201's `$ref: #/components/responses/Gone` points at nothing in the document",
      ],
    ]);
    expect(diagnostics[0].fix).toContain('bundle external files first');
  });

  it('reports a path template variable no parameter declares', () => {
    const { diagnostics } = readOperations({
      openapi: '3.0.3',
      paths: { '/t/{id}/c/{cid}': { get: { parameters: [idParam] } } },
    });
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        where: 'OpenAPI operation GET /t/{id}/c/{cid}',
        problem: 'the path has `{cid}` but the operation declares no path parameter `cid`',
        fix: "add `{ name: 'cid', in: 'path', required: true, schema: { type: 'string' } }` to its parameters",
      },
    ]);
  });

  it('reports a parameter without name or location and leaves it out', () => {
    const { operations, diagnostics } = readOperations({
      openapi: '3.0.3',
      paths: { '/t': { get: { parameters: [{ name: 'q', in: 'body' }, { in: 'query' }] } } },
    });
    expect(operations[0].parameters).toEqual([]);
    expect(diagnostics.map((d) => d.problem)).toEqual([
      'a parameter has no `name` or no `in` of path, query, header, cookie; it is left out',
      'a parameter has no `name` or no `in` of path, query, header, cookie; it is left out',
    ]);
  });

  it('prefers application/json, then +json, then */* media types; keeps a non-JSON body type as is', () => {
    const schema = (title: string) => ({ type: 'object', title });
    const { operations } = readOperations({
      openapi: '3.0.3',
      paths: {
        '/a': {
          post: {
            requestBody: {
              content: { 'application/xml': { schema: schema('xml') }, 'application/json': { schema: schema('json') } },
            },
            responses: {
              '200': {
                content: {
                  'text/plain': { schema: { type: 'string' } },
                  'application/problem+json': { schema: schema('problem') },
                },
              },
              '201': { content: { '*/*': { schema: schema('any') } } },
              '202': { content: { 'text/csv': { schema: { type: 'string' } } } },
              '204': { description: 'nothing' },
            },
          },
        },
        '/b': {
          post: { requestBody: { content: { '*/*': { schema: schema('any') } } } },
          put: {
            requestBody: { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          },
        },
      },
    });
    expect(operations[0].requestBody).toEqual({
      required: false,
      contentType: 'application/json',
      schema: schema('json'),
    });
    expect(operations[0].responses).toEqual([
      { status: '200', contentType: 'application/problem+json', schema: schema('problem') },
      { status: '201', contentType: '*/*', schema: schema('any') },
      { status: '202', contentType: 'text/csv' },
      { status: '204', description: 'nothing' },
    ]);
    // `put` comes before `post` in a path item.
    expect(operations[2].requestBody?.contentType).toBe('application/json');
    expect(operations[1].requestBody).toEqual({
      required: false,
      contentType: 'application/octet-stream',
      schema: { type: 'string', format: 'binary' },
    });
  });

  it('prefixes paths with the basePath option only', () => {
    const document = { openapi: '3.0.3', servers: [{ url: 'https://x.test/api/v3' }], paths: { '/pet': { get: {} } } };
    expect(readOperations(document).operations[0].path).toBe('/pet');
    expect(readOperations(document, { basePath: basePathOf(document) }).operations[0].path).toBe('/api/v3/pet');
    expect(readOperations(document, { basePath: '/v1/' }).operations[0].path).toBe('/v1/pet');
  });
});

describe('basePathOf / serverUrlOf', () => {
  it.each([
    [[{ url: 'https://petstore3.swagger.io/api/v3' }], '/api/v3'],
    [[{ url: 'https://x.test/' }], ''],
    [[{ url: '/v1/' }], '/v1'],
    [[{ url: 'v2' }], '/v2'],
    [
      [{ url: '{scheme}://x.test/{base}', variables: { scheme: { default: 'https' }, base: { default: 'api' } } }],
      '/api',
    ],
    [undefined, ''],
  ])('servers %j → %j', (servers, expected) => {
    expect(basePathOf({ openapi: '3.0.3', servers })).toBe(expected);
  });

  it('resolves a relative server URL against the document URL', () => {
    expect(serverUrlOf({ openapi: '3.1.0', servers: [{ url: '/v1' }] }, 'https://api.test/openapi.json')).toBe(
      'https://api.test/v1',
    );
    expect(serverUrlOf({ openapi: '3.1.0', servers: [{ url: 'https://a.test/api/' }] })).toBe('https://a.test/api');
    expect(serverUrlOf({ openapi: '3.1.0', servers: [{ url: '/v1' }] })).toBeUndefined();
    expect(serverUrlOf({ openapi: '3.1.0' })).toBeUndefined();
  });
});
