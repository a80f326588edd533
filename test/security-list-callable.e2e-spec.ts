import { PassThrough } from 'node:stream';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { StdioTransport } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { ROLES, SCOPES, SecurityFixtureModule } from './fixtures/security.fixtures';
import { connectHttpClient } from './support/fixture-app';
import { StreamClientTransport } from './support/stream-client.transport';

const TOOLS = ['hello', 'readTicket', 'writeTicket', 'reassign', 'buildReport'];
const PROMPTS = ['openPrompt', 'reportPrompt'];
const RESOURCES = ['desk://motd', 'desk://queue', 'desk://audit'];

interface Principal {
  id: string;
  scopes: string[];
  roles: string[];
}

/** Principals with every mix of scopes and roles, drawn from a seeded generator so runs repeat. */
function principals(count: number, seed: number): Principal[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, (_, index) => ({
    id: `p${index}`,
    scopes: SCOPES.filter(() => next() < 0.5),
    roles: ROLES.filter(() => next() < 0.4),
  }));
}

const succeeds = (promise: Promise<unknown>) =>
  promise.then(
    () => true,
    () => false,
  );

/** The calls the property makes: the same names and shapes in the SDK v1 and v2 clients. */
type ListingClient = Pick<
  Client,
  'listTools' | 'listPrompts' | 'listResources' | 'callTool' | 'getPrompt' | 'readResource' | 'close'
>;
type Era = '2025-11-25' | '2026-07-28';
const ERAS: Era[] = ['2025-11-25', '2026-07-28'];

/** The SDK v2 client pinned to 2026-07-28 (every request stateless, its `_meta` saying who it is). */
async function connectStateless(transport: Parameters<ClientV2['connect']>[0]): Promise<ListingClient> {
  const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  return client as unknown as ListingClient;
}

/** Asserts that what `client` lists is exactly what it can use, for every kind of entry. */
async function expectListedIsCallable(client: ListingClient): Promise<void> {
  const tools = new Set((await client.listTools()).tools.map((tool) => tool.name));
  const prompts = new Set((await client.listPrompts()).prompts.map((prompt) => prompt.name));
  const resources = new Set((await client.listResources()).resources.map((resource) => resource.uri));
  for (const name of TOOLS) {
    const args = name === 'readTicket' ? { id: 'T-1' } : {};
    expect({ name, callable: await succeeds(client.callTool({ name, arguments: args })) }).toEqual({
      name,
      callable: tools.has(name),
    });
  }
  for (const name of PROMPTS)
    expect({ name, callable: await succeeds(client.getPrompt({ name })) }).toEqual({
      name,
      callable: prompts.has(name),
    });
  for (const uri of RESOURCES)
    expect({ uri, callable: await succeeds(client.readResource({ uri })) }).toEqual({
      uri,
      callable: resources.has(uri),
    });
  expect(tools.has('hello') && prompts.has('openPrompt') && resources.has('desk://motd')).toBe(true); // open entries stay open
}

/** Every `tasks/*` method a caller may use on a task: each works exactly on the tasks `tasks/list` shows it. */
async function expectTasksListedAreUsable(
  client: Client,
  allTaskIds: readonly string[],
  own: readonly string[],
): Promise<void> {
  const request = (method: string, params: Record<string, unknown>, schema: Parameters<Client['request']>[1]) =>
    client.request({ method, params } as never, schema);
  const listed = new Set(
    ((await request('tasks/list', {}, ListTasksResultSchema)) as { tasks: { taskId: string }[] }).tasks.map(
      (task) => task.taskId,
    ),
  );
  expect([...listed].sort()).toEqual([...own].sort());
  for (const taskId of allTaskIds) {
    const usable = listed.has(taskId);
    expect({ taskId, get: await succeeds(request('tasks/get', { taskId }, GetTaskResultSchema)) }).toEqual({
      taskId,
      get: usable,
    });
    expect({ taskId, result: await succeeds(request('tasks/result', { taskId }, CallToolResultSchema)) }).toEqual({
      taskId,
      result: usable,
    });
    // Its own tasks have completed, so cancelling fails, but not as an unknown task.
    const cancelled = await request('tasks/cancel', { taskId }, CancelTaskResultSchema).then(
      () => 'cancelled',
      (error: Error) => error.message,
    );
    expect({ taskId, known: !cancelled.includes('Unknown task') }).toEqual({ taskId, known: usable });
  }
}

/**
 * The security fixture over HTTP with an API key for each of 12 generated principals (the same
 * seed every run), on a loopback port.
 */
async function startKeyedApp(mode?: 'stateful' | 'stateless') {
  const keys = principals(12, 7).map((principal) => ({ key: `key-for-${principal.id}`, principal }));
  const moduleRef = await Test.createTestingModule({
    imports: [
      SecurityFixtureModule.register({
        ...(mode && { mode }),
        auth: {
          mode: 'apiKey',
          keys: keys.map(({ key, principal }) => ({
            hash: hashApiKey(key),
            principal: principal.id,
            scopes: principal.scopes,
            roles: principal.roles,
          })),
        },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { keys, app, url: `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp` };
}

describe('listed ⇔ callable, for generated principals', () => {
  it.each(['stateful', 'stateless'] as const)(
    'holds for every tasks/* method over HTTP (API keys, %s)',
    async (mode) => {
      const { keys, app, url } = await startKeyedApp(mode);
      const clients = await Promise.all(keys.map(({ key }) => connectHttpClient(url, { 'x-api-key': key })));
      try {
        // Every principal that may run the task tool starts one; the others cannot.
        const own = new Map<Client, string[]>();
        for (const client of clients) {
          const created = await client
            .request(
              { method: 'tools/call', params: { name: 'buildReport', arguments: {}, task: {} } } as never,
              CreateTaskResultSchema,
            )
            .then(
              (result) => [(result as { task: { taskId: string } }).task.taskId],
              () => [],
            );
          own.set(client, created);
        }
        const all = [...own.values()].flat();
        expect(all.length).toBeGreaterThan(1);
        for (const client of clients) await expectTasksListedAreUsable(client, all, own.get(client)!);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await app.close();
      }
    },
  );

  it.each(ERAS)('holds over HTTP (API keys), %s requests', async (era) => {
    const { keys, app, url } = await startKeyedApp();
    try {
      for (const { key } of keys) {
        const headers = { 'x-api-key': key };
        const client =
          era === '2025-11-25'
            ? await connectHttpClient(url, headers)
            : await connectStateless(new TransportV2(new URL(url), { requestInit: { headers } }));
        await expectListedIsCallable(client);
        await client.close();
      }
    } finally {
      await app.close();
    }
  });

  it.each(ERAS)('holds over stdio (the configured local principal), %s requests', async (era) => {
    for (const principal of principals(5, 11)) {
      const moduleRef = await Test.createTestingModule({
        imports: [SecurityFixtureModule.register({ http: false, stdioPrincipal: principal })],
      }).compile();
      await moduleRef.init();
      const app: INestApplicationContext = moduleRef;
      const toServer = new PassThrough();
      const fromServer = new PassThrough();
      void app.get(StdioTransport).connect(toServer, fromServer);
      const transport = new StreamClientTransport(fromServer, toServer);
      let client: ListingClient;
      if (era === '2025-11-25') {
        const v1 = new Client({ name: 'stdio', version: '1' });
        await v1.connect(transport);
        client = v1;
      } else client = await connectStateless(transport as unknown as Parameters<ClientV2['connect']>[0]);
      await expectListedIsCallable(client);
      await client.close();
      await app.close();
    }
  });
});
