import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpModule, type McpModuleOptions } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { CapturingLogger } from './support/capturing-logger';
import { auditRecords } from './support/desk-host';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';
import { waitFor } from './support/wait-for';
import { PETSTORE_DOCUMENT_FILE, PETSTORE_TOKEN, startPetstoreStub, type PetstoreStub } from './support/petstore-stub';

// Several hosts start here: on a busy CI machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

const PET_TOOLS = ['petstore_addPet', 'petstore_deletePet', 'petstore_findPetsByStatus', 'petstore_getPetById'];
const KEYS = { pets: 'key-with-pets-scope', other: 'key-without-pets-scope', approver: 'key-of-an-approver' };

/** A host exposing nothing but external REST APIs, with two API keys (one holds `pets`). */
async function startHost(
  rest: McpModuleOptions['rest'],
  audit?: string,
): Promise<{ app: INestApplication; url: string }> {
  const app = await startTestApp({
    imports: [
      McpModule.forRoot({
        name: 'rest-apis',
        version: '1.0.0',
        confirmDestructive: true,
        auth: {
          mode: 'apiKey',
          keys: [
            { hash: hashApiKey(KEYS.pets), principal: 'pet-clerk', scopes: ['pets'] },
            { hash: hashApiKey(KEYS.other), principal: 'someone-else', scopes: [] },
          ],
        },
        ...(audit && { audit: { file: audit, flushIntervalMs: 10 } }),
        rest,
      }),
    ],
  });
  return { app, url: `${await baseUrlOf(app)}/mcp` };
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();

describe('an external OpenAPI document (the Swagger Petstore) exposed against a local stub of its API', () => {
  let stub: PetstoreStub;
  let host: { app: INestApplication; url: string };
  let client: Client;
  const audit = join(tmpdir(), `rest-apis-audit-${randomUUID()}.jsonl`);

  beforeAll(async () => {
    stub = await startPetstoreStub();
    host = await startHost(
      {
        apis: [
          {
            name: 'petstore',
            document: PETSTORE_DOCUMENT_FILE,
            baseUrl: stub.baseUrl,
            credentials: { bearer: PETSTORE_TOKEN },
            operations: { operationIds: ['getPetById', 'findPetsByStatus', 'addPet', 'deletePet'] },
            prefix: 'petstore_',
            scopes: ['pets'],
            timeoutMs: 1_000,
          },
          {
            // The document fetched from the API itself; its relative server `/api/v3` gives the base URL.
            name: 'petstore-by-url',
            document: `${stub.baseUrl}/openapi.yaml`,
            credentials: { bearer: PETSTORE_TOKEN },
            operations: { operationIds: ['getPetById'] },
            prefix: 'byurl_',
          },
          {
            name: 'petstore-stale-token',
            document: PETSTORE_DOCUMENT_FILE,
            baseUrl: stub.baseUrl,
            credentials: { bearer: 'expired-token' },
            operations: { operationIds: ['getPetById'] },
            prefix: 'stale_',
          },
        ],
      },
      audit,
    );
    client = await connectHttpClient(
      host.url,
      { 'x-api-key': KEYS.pets },
      { capabilities: { elicitation: { form: {} } } },
    );
  });
  afterAll(async () => {
    await client?.close();
    await host?.app.close();
    await stub?.close();
  });

  it('lists the chosen operations as tools named from their operationIds, with schemas and annotations from the document', async () => {
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual([...PET_TOOLS, 'byurl_getPetById', 'stale_getPetById'].sort());
    const get = tools.find((tool) => tool.name === 'petstore_getPetById')!;
    expect(get.description).toMatch(/^Find pet by ID/);
    expect(get.inputSchema).toMatchObject({
      type: 'object',
      properties: { petId: { type: 'integer' } },
      required: ['petId'],
    });
    expect(get.outputSchema).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
    expect(get.annotations).toMatchObject({ readOnlyHint: true });
    expect(get._meta?.['nest-mcp-host/rest']).toMatchObject({
      api: 'petstore',
      method: 'GET',
      path: '/pet/{petId}',
      operationId: 'getPetById',
      tags: ['pet'],
    });
    const remove = tools.find((tool) => tool.name === 'petstore_deletePet')!;
    expect(remove.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(Object.keys(remove.inputSchema.properties ?? {}).sort()).toEqual(['api_key', 'petId']);
    const add = tools.find((tool) => tool.name === 'petstore_addPet')!;
    expect(add.inputSchema.required).toEqual(expect.arrayContaining(['name', 'photoUrls']));
  });

  it('hides the API from a caller without its scope, and refuses its calls', async () => {
    const other = await connectHttpClient(host.url, { 'x-api-key': KEYS.other });
    try {
      const { tools } = await other.listTools();
      expect(names(tools).filter((name) => name.startsWith('petstore_'))).toEqual([]);
      const refused = await call(other, 'petstore_getPetById', { petId: 1 }).catch((error: Error) => error);
      expect(refused).toMatchObject({ message: expect.stringMatching(/petstore_getPetById/) });
      expect(stub.requests.filter(({ headers }) => headers['x-api-key'] !== undefined)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('calls the API with its configured credentials, and nothing of the MCP request', async () => {
    const before = stub.requests.length;
    const result = await call(client, 'petstore_getPetById', { petId: 1 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      id: 1,
      name: 'Rex',
      photoUrls: ['https://example.com/rex.jpg'],
      status: 'available',
    });
    const [request] = stub.requests.slice(before);
    expect(request).toMatchObject({ method: 'GET', url: '/api/v3/pet/1' });
    expect(request.headers.authorization).toBe(`Bearer ${PETSTORE_TOKEN}`);
    const leaked = Object.keys(request.headers).filter((name) => /^(x-api-key|mcp-|cookie|traceparent)/.test(name));
    expect(leaked).toEqual([]);
  });

  it('sends query parameters and wraps a non-object answer as { result }', async () => {
    const result = await call(client, 'petstore_findPetsByStatus', { status: 'sold' });
    expect(stub.requests.at(-1)?.url).toBe('/api/v3/pet/findByStatus?status=sold');
    expect(result.structuredContent).toEqual({ result: [{ id: 2, name: 'Tom', photoUrls: [], status: 'sold' }] });
  });

  it('sends the body, and returns the field-level errors the API answers with', async () => {
    const refused = await call(client, 'petstore_addPet', { name: ' ', photoUrls: ['http://insecure.example/x.jpg'] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^petstore: POST \/pet failed \(422/);
    expect(refused._meta?.['nest-mcp-host/rest']).toMatchObject({
      status: 422,
      fields: [
        { field: 'name', messages: ['must not be blank'] },
        { field: 'photoUrls', messages: ['every photo must be an https URL'] },
      ],
    });

    const [record] = await auditRecords(audit, (r) => r.target === 'petstore_addPet');
    expect(record).toMatchObject({ outcome: 'invalid', route: 'petstore: POST /pet' });

    const added = await call(client, 'petstore_addPet', { id: 42, name: 'Nala', photoUrls: [], status: 'pending' });
    expect(added.structuredContent).toEqual({ id: 42, name: 'Nala', photoUrls: [], status: 'pending' });
    expect(JSON.parse(stub.requests.at(-1)!.body)).toEqual({ id: 42, name: 'Nala', photoUrls: [], status: 'pending' });
    const read = await call(client, 'byurl_getPetById', { petId: 42 });
    expect(read.structuredContent).toEqual(added.structuredContent);
  });

  it("returns the API's own error for a missing resource", async () => {
    const missing = await call(client, 'petstore_getPetById', { petId: 999 });
    expect(missing).toMatchObject({ isError: true, _meta: { 'nest-mcp-host/rest': { status: 404 } } });
    expect(textOf(missing)).toContain('Pet not found');
  });

  it('asks for confirmation before the destructive DELETE, sends the header argument, and audits the operation', async () => {
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    const deleted = await call(client, 'petstore_deletePet', { petId: 3, api_key: 'special-key' });
    expect(asked).toHaveLength(1);
    expect(deleted.isError).toBeFalsy();
    expect(stub.requests.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/v3/pet/3' });
    expect(stub.requests.at(-1)!.headers.api_key).toBe('special-key');
    expect((await call(client, 'petstore_getPetById', { petId: 3 })).isError).toBe(true);
    const [record] = await auditRecords(audit, (r) => r.target === 'petstore_deletePet');
    expect(record).toMatchObject({ outcome: 'ok', route: 'petstore: DELETE /pet/{petId}', principal: 'pet-clerk' });
  });

  it("says when the API refuses the host's credentials, without passing the caller's identity instead", async () => {
    const refused = await call(client, 'stale_getPetById', { petId: 1 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/petstore-stale-token refused the host's credentials/);
    expect(stub.requests.at(-1)!.headers.authorization).toBe('Bearer expired-token');
  });

  it('aborts the request to the API when the MCP client cancels the call', async () => {
    stub.delay(5_000);
    try {
      const sent = stub.requests.length;
      const controller = new AbortController();
      const cancelled = client.callTool({ name: 'petstore_getPetById', arguments: { petId: 2 } }, undefined, {
        signal: controller.signal,
      });
      await waitFor(() => stub.requests.length > sent);
      controller.abort('the user changed their mind');
      await expect(cancelled).rejects.toThrow();
      await waitFor(() => stub.abandoned.some(({ url }) => url === '/api/v3/pet/2'));
      const [record] = await auditRecords(
        audit,
        (r) => r.target === 'petstore_getPetById' && r.outcome === 'cancelled',
      );
      expect(record).toMatchObject({ route: 'petstore: GET /pet/{petId}' });
    } finally {
      stub.delay(0);
    }
  });

  it('gives up on an API that does not answer in time, with a message naming the API and not its URL', async () => {
    stub.delay(1_500);
    try {
      const late = await call(client, 'petstore_getPetById', { petId: 1 });
      expect(late.isError).toBe(true);
      expect(textOf(late)).toBe(
        'The REST API petstore did not answer within 1000 ms; the operation may be retried later.',
      );
      // The host hung up rather than leaving the request open.
      await waitFor(() => stub.abandoned.some(({ url }) => url === '/api/v3/pet/1'));
    } finally {
      stub.delay(0);
    }
  });
});

describe('external OpenAPI documents at start-up', () => {
  /** Starts a host that should not start; closes it if it does, so the failure is the assertion's. */
  async function startFailure(rest: McpModuleOptions['rest']): Promise<Error> {
    const started = await startHost(rest).catch((error: Error) => error);
    if (started instanceof Error) return started;
    await started.app.close();
    throw new Error('the host started');
  }

  it('stops the start naming the API and the document it cannot read', async () => {
    const error = await startFailure({
      apis: [{ name: 'ghost', document: './no/such/openapi.yaml', baseUrl: 'https://api.example.com' }],
    });
    expect(error.message).toMatch(
      /rest\.apis\[0\]\.document: the document cannot be read from .*no\/such\/openapi\.yaml \(ENOENT\)/,
    );
  });

  it('stops the start when no base URL is known: a relative server and a document not read from a URL', async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'Relative', version: '1' },
      servers: [{ url: '/v1' }],
      paths: { '/things': { get: { operationId: 'listThings', responses: { 200: { description: 'ok' } } } } },
    };
    const error = await startFailure({ apis: [{ name: 'relative', document }] });
    expect(error.message).toMatch(
      /rest\.apis\[0\]\.baseUrl: is not set, and the document's first server gives no absolute http\(s\) URL/,
    );
  });

  it('reports a name clash between two APIs with the fix', async () => {
    const api = {
      document: PETSTORE_DOCUMENT_FILE,
      baseUrl: 'http://127.0.0.1:9/api/v3',
      operations: { operationIds: ['getPetById'] },
    };
    const error = await startFailure({
      apis: [
        { name: 'one', ...api },
        { name: 'two', ...api },
      ],
    });
    expect(error.message).toMatch(/getPetById/);
  });

  it('refuses options it cannot use, each with the option and the fix, before reading any document', async () => {
    const error = await startFailure({
      apis: [
        {
          name: 'petstore',
          document: PETSTORE_DOCUMENT_FILE,
          credentials: { bearer: process.env.NO_SUCH_TOKEN_SET! },
        },
        { name: 'petstore', document: PETSTORE_DOCUMENT_FILE, baseUrl: 'ftp://example.com', timeoutMs: 0 },
      ],
    });
    expect(error.message).toMatch(
      /rest\.apis\[0\]\.credentials\.bearer": must be a non-empty string\n\s+fix: .*is the environment variable it comes from set\?/,
    );
    expect(error.message).toMatch(
      /rest\.apis\[1\]\.baseUrl": must be an absolute http\(s\) URL, got "ftp:\/\/example.com"/,
    );
    expect(error.message).toMatch(/rest\.apis\[1\]\.timeoutMs"/);
    expect(error.message).toMatch(/rest\.apis\[1\]\.name": "petstore" names another API too/);
  });
});

describe("confirmation of an external API's writes, without the host's confirmDestructive", () => {
  let stub: PetstoreStub;
  let app: INestApplication;
  let url: string;
  let base: string;

  beforeAll(async () => {
    stub = await startPetstoreStub();
    app = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'rest-apis-confirmed',
          version: '1.0.0',
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.pets), principal: 'pet-clerk', scopes: ['pets'] },
              { hash: hashApiKey(KEYS.approver), principal: 'vet', roles: ['approver'] },
            ],
          },
          rest: {
            apis: [
              {
                name: 'petstore',
                document: PETSTORE_DOCUMENT_FILE,
                baseUrl: stub.baseUrl,
                credentials: { bearer: PETSTORE_TOKEN },
                operations: { operationIds: ['getPetById', 'addPet', 'deletePet'] },
                scopes: ['pets'],
                // addPet is a POST, which HTTP does not call destructive: a rule decides it asks.
                confirm: { ask: { operationIds: ['addPet'] } },
              },
            ],
          },
        }),
      ],
    });
    base = await baseUrlOf(app);
    url = `${base}/mcp`;
  });
  afterAll(async () => {
    await app?.close();
    await stub?.close();
  });

  /** A client whose user answers every question with `answer`; without it, a client that cannot show forms. */
  async function clerk(answer?: 'accept' | 'decline') {
    const asked: string[] = [];
    const client = await connectHttpClient(
      url,
      { 'x-api-key': KEYS.pets },
      answer ? { capabilities: { elicitation: { form: {} } } } : {},
    );
    if (answer)
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      });
    return { client, asked };
  }
  const posts = () => stub.requests.filter(({ method, url: path }) => method === 'POST' && path === '/api/v3/pet');

  it('asks before addPet, and sends it once when the user confirms', async () => {
    const { client, asked } = await clerk('accept');
    try {
      const before = posts().length;
      const added = await call(client, 'addPet', { id: 70, name: 'Milo', photoUrls: [] });
      expect(added.structuredContent).toEqual({ id: 70, name: 'Milo', photoUrls: [] });
      expect(asked).toHaveLength(1);
      expect(posts().length - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('sends nothing to the API when the user declines', async () => {
    const { client, asked } = await clerk('decline');
    try {
      const before = stub.requests.length;
      const declined = await call(client, 'addPet', { id: 71, name: 'Luna', photoUrls: [] });
      expect(declined.isError).toBe(true);
      expect(textOf(declined)).toBe(
        'The user did not confirm "addPet" (decline); it was not run. Do not retry without asking the user.',
      );
      // DELETE asks by default (rest.confirm 'destructive'), with no confirmDestructive on the host.
      expect((await call(client, 'deletePet', { petId: 1, api_key: 'special-key' })).isError).toBe(true);
      expect(asked).toHaveLength(2);
      expect(stub.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('holds the call of a client without forms for an approver, then sends it once', async () => {
    const { client } = await clerk();
    try {
      const args = { id: 72, name: 'Oscar', photoUrls: [] };
      const before = posts().length;
      const held = await call(client, 'addPet', args);
      expect(held.isError).toBe(true);
      expect(textOf(held)).toMatch(/^"addPet" needs a person's approval before it runs, and it was not run\./);
      expect(posts().length).toBe(before);
      const approver = { 'x-api-key': KEYS.approver };
      const { approvals } = (await (
        await fetch(`${base}/admin/api/approvals?status=pending`, { headers: approver })
      ).json()) as { approvals: { id: string; tool: string; arguments: unknown }[] };
      expect(approvals).toEqual([expect.objectContaining({ tool: 'addPet', arguments: args })]);
      const decided = await fetch(`${base}/admin/api/approvals/${approvals[0].id}/approve`, {
        method: 'POST',
        headers: { ...approver, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(decided.status).toBe(200);
      expect((await call(client, 'addPet', args)).structuredContent).toEqual(args);
      expect(posts().length - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('writes exposed with no confirmation decided, at start-up', () => {
  /** Starts a host with `rest`, logging into `lines`; closes it, or returns why it did not start. */
  async function start(rest: McpModuleOptions['rest']): Promise<{ warnings: string[]; error?: Error }> {
    const logger = new CapturingLogger();
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'undecided', version: '1.0.0', rest })],
    }).compile();
    const app = moduleRef.createNestApplication({ logger });
    try {
      await app.init();
    } catch (error) {
      return { warnings: logger.at('warn'), error: error as Error };
    } finally {
      await app.close().catch(() => undefined);
    }
    return { warnings: logger.at('warn') };
  }
  const petstore = {
    name: 'petstore',
    document: PETSTORE_DOCUMENT_FILE,
    baseUrl: 'http://127.0.0.1:9/api/v3',
    operations: { tags: ['pet'] },
  };

  it('lists every write that runs without confirmation in one warning, with the fix', async () => {
    const { warnings, error } = await start({ apis: [petstore] });
    expect(error).toBeUndefined();
    const listed = warnings.filter((line) => line.includes("run without a person's confirmation"));
    expect(listed).toEqual([
      "rest.apis[0].confirm: 3 exposed write(s) run without a person's confirmation, and nothing decided so: " +
        'PUT /pet (updatePet), POST /pet (addPet), POST /pet/{petId} (updatePetWithForm). ' +
        'An agent calling them changes data at once, even where the same action done by an MCP tool is held for approval ' +
        "(decide each: rest.apis[0].confirm: { ask: { operationIds: ['updatePet'] } } to confirm it, " +
        "or { skip: { operationIds: ['updatePet'] } } to let it run; or rest.apis[0].confirm: 'writes' (every write asks) " +
        "or 'destructive' (only DELETE and operations marked destructive))",
    ]);
  });

  it('lists nothing once each write is decided, and stops the start under undecided: error', async () => {
    const decided = await start({
      apis: [{ ...petstore, confirm: { ask: { operationIds: ['addPet'] }, skip: { paths: ['/pet', '/pet/*'] } } }],
    });
    expect(decided.warnings.filter((line) => line.includes('confirmation'))).toEqual([]);
    const policy = await start({ confirm: 'writes', apis: [petstore] });
    expect(policy.warnings.filter((line) => line.includes('confirmation'))).toEqual([]);

    const strict = await start({ confirm: { undecided: 'error' }, apis: [petstore] });
    expect(strict.error?.message).toMatch(
      /rest\.apis\[0\]\.confirm: 3 exposed write\(s\) run without a person's confirmation, and nothing decided so: PUT \/pet \(updatePet\)/,
    );
  });
});
