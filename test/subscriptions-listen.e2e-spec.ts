import { PassThrough } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpCatalog, McpResourceNotifier } from 'nest-mcp-host';
import { StdioTransport } from '#libs/hosting';
import { ListenSubscriptions, SessionStore } from '#libs/protocol';
import { FixtureModule } from './fixtures/fixture.module';
import { fetchFrom } from './support/address-fetch';
import { DESK_KEYS, startDeskHost } from './support/desk-host';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { SseReader } from './support/sse-reader';
import { post2026 } from './support/stateless-request';
import { waitFor } from './support/wait-for';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ARTICLE = 'kb://articles/password-reset';

/** A 2026-07-28 client's `subscriptions/listen` stream on the desk, as `key`'s principal. */
async function listen(url: string, key: string, notifications: Record<string, unknown>, id: number) {
  const response = await post2026(
    url,
    'subscriptions/listen',
    { notifications },
    { authorization: `Bearer ${key}` },
    { id },
  );
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const stream = new SseReader(response);
  const acknowledgement = await stream.next();
  return { stream, acknowledgement };
}

/** What a notification on a listen stream says, without the subscription id it must carry. */
function untagged(message: Record<string, unknown>, id: number) {
  const { _meta, ...params } = message.params as { _meta: Record<string, unknown> };
  expect(_meta).toEqual({ [SUBSCRIPTION_ID]: id });
  return { method: message.method, params };
}

describe('subscriptions/listen on the support desk (API keys)', () => {
  let app: INestApplication;
  let url: string;
  let catalog: McpCatalog;
  const open: SseReader[] = [];

  beforeAll(async () => {
    ({ app, url } = await startDeskHost({ AUTH_MODE: 'apiKey' }));
    catalog = app.get(McpCatalog);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((stream) => stream.cancel()));
    await waitFor(() => app.get(ListenSubscriptions).size === 0);
  });
  afterAll(() => app.close());

  it('acknowledges first what it agreed to, each message tagged with the listen id', async () => {
    const { stream, acknowledgement } = await listen(
      url,
      DESK_KEYS.reader,
      { toolsListChanged: true, resourceSubscriptions: [ARTICLE, 'kb://nowhere'], unknownField: true },
      41,
    );
    open.push(stream);
    expect(acknowledgement).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: [ARTICLE] },
        _meta: { [SUBSCRIPTION_ID]: 41 },
      },
    });
  });

  it('delivers a catalog change made at run time to a 2026-07-28 listener and to a 2025-era session’s GET stream', async () => {
    const session: Client = await connectHttpClient(url, { authorization: `Bearer ${DESK_KEYS.admin}` });
    const heard: string[] = [];
    session.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
    // The SDK opens its GET stream after initialize, in the background.
    await waitFor(() => [...app.get(SessionStore).live()].some((live) => live.sinkCount > 0));
    const { stream } = await listen(url, DESK_KEYS.reader, { toolsListChanged: true }, 42);
    open.push(stream);

    catalog.addTool({ name: 'desk_status', description: 'Whether the desk is staffed' }, () => 'staffed');
    try {
      expect(untagged(await stream.next(), 42)).toEqual({ method: 'notifications/tools/list_changed', params: {} });
      await waitFor(() => heard.length === 1);
    } finally {
      catalog.remove('tool', 'desk_status');
      await session.close();
    }
  });

  it('tells each listener only of what it asked for and of changes to entries its principal may see', async () => {
    const reader = await listen(url, DESK_KEYS.reader, { toolsListChanged: true, promptsListChanged: true }, 43);
    const admin = await listen(url, DESK_KEYS.admin, { toolsListChanged: true, promptsListChanged: true }, 44);
    const toolsOnly = await listen(url, DESK_KEYS.admin, { toolsListChanged: true }, 45);
    open.push(reader.stream, admin.stream, toolsOnly.stream);

    catalog.disable('tool', 'export_ticket_report'); // needs the reports scope: the reader cannot see it
    catalog.addTool({ name: 'desk_hours', description: 'Opening hours' }, () => '9-17');
    catalog.addPrompt({ name: 'desk_greeting', description: 'Greets a customer' }, () => 'Hello!');
    try {
      const methodsOf = async (stream: SseReader, id: number, count: number) => {
        const methods: unknown[] = [];
        for (let i = 0; i < count; i++) methods.push(untagged(await stream.next(), id).method);
        return methods;
      };
      // The prompt change comes last: whatever came before it on a stream is all that stream was sent.
      expect(await methodsOf(reader.stream, 43, 2)).toEqual([
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
      ]);
      expect(await methodsOf(admin.stream, 44, 3)).toEqual([
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
      ]);
      catalog.addTool({ name: 'desk_sentinel', description: 'Marks the end of this case' }, () => 'end');
      expect(await methodsOf(toolsOnly.stream, 45, 3)).toEqual([
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
      ]);
    } finally {
      catalog.enable('tool', 'export_ticket_report');
      for (const name of ['desk_hours', 'desk_sentinel']) catalog.remove('tool', name);
      catalog.remove('prompt', 'desk_greeting');
    }
  });

  it('sends resource updates only for the URIs agreed, which a principal without access to them is not given', async () => {
    const reader = await listen(url, DESK_KEYS.reader, { resourceSubscriptions: [ARTICLE] }, 46);
    const approver = await listen(
      url,
      DESK_KEYS.approver,
      { resourceSubscriptions: [ARTICLE], toolsListChanged: true },
      47,
    );
    open.push(reader.stream, approver.stream);
    // The approver has no kb:read: the article is left out, as a URI that names nothing would be.
    expect(approver.acknowledgement.params).toMatchObject({
      notifications: { resourceSubscriptions: [], toolsListChanged: true },
    });

    app.get(McpResourceNotifier).resourceUpdated(ARTICLE);
    expect(untagged(await reader.stream.next(), 46)).toEqual({
      method: 'notifications/resources/updated',
      params: { uri: ARTICLE },
    });
    catalog.addTool({ name: 'desk_marker', description: 'Marks the end of this case' }, () => 'end');
    try {
      expect(untagged(await approver.stream.next(), 47).method).toBe('notifications/tools/list_changed');
    } finally {
      catalog.remove('tool', 'desk_marker');
    }
  });

  it('ends a subscription when the client closes its stream', async () => {
    const { stream } = await listen(url, DESK_KEYS.reader, { toolsListChanged: true }, 48);
    expect(app.get(ListenSubscriptions).size).toBe(1);
    await stream.cancel();
    await waitFor(() => app.get(ListenSubscriptions).size === 0);
  });

  it('refuses a filter of the wrong shape, and a client that does not take a stream', async () => {
    const headers = { authorization: `Bearer ${DESK_KEYS.reader}` };
    const bad = await post2026(url, 'subscriptions/listen', { notifications: { toolsListChanged: 'yes' } }, headers);
    expect((await bad.json()) as unknown).toMatchObject({ error: { code: -32602 } });
    const jsonOnly = await post2026(
      url,
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      {
        ...headers,
        accept: 'application/json',
      },
    );
    expect(jsonOnly.status).toBe(406);
    expect((await jsonOnly.json()) as unknown).toMatchObject({ error: { code: -32600 } });
  });
});

describe('subscriptions/listen when the desk shuts down', () => {
  it('says the subscription ends (notifications/cancelled), answers the listen request, and closes the stream', async () => {
    const { app, url } = await startDeskHost();
    const { stream } = await listen(url, 'no key needed', { toolsListChanged: true }, 7);
    await app.close();
    const rest = await stream.end();
    expect(rest).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 7, reason: 'host shutting down', _meta: { [SUBSCRIPTION_ID]: 7 } },
      },
      { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 7 } } },
    ]);
  });
});

describe('subscriptions/listen over stdio', () => {
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  /** The fixture app on stdio, driven by raw lines: what it wrote, parsed. */
  async function stdioHost() {
    const moduleRef = await Test.createTestingModule({ imports: [FixtureModule.register({ http: false })] }).compile();
    await moduleRef.init();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    output.setEncoding('utf8');
    output.on('data', (chunk: string) =>
      chunk
        .split('\n')
        .filter(Boolean)
        .forEach((line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    );
    void moduleRef.get(StdioTransport).connect(input, output);
    const send = (message: Record<string, unknown>) =>
      input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    return { moduleRef, lines, send };
  }

  it('shares stdout with other messages, tags its own, and ends unanswered on notifications/cancelled', async () => {
    const { moduleRef, lines, send } = await stdioHost();
    try {
      send({
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: META },
      });
      await waitFor(() => lines.length === 1);
      expect(lines[0]).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      });
      moduleRef.get(McpCatalog).addTool({ name: 'stdio_status', description: 'Status' }, () => 'up');
      await waitFor(() => lines.length === 2);
      expect(lines[1]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      });
      send({ method: 'notifications/cancelled', params: { requestId: 'listen-1', reason: 'done' } });
      await waitFor(() => moduleRef.get(ListenSubscriptions).size === 0);
      // The next line is the answer to the next request: the cancelled listen request got none.
      send({ id: 2, method: 'server/discover', params: { _meta: META } });
      await waitFor(() => lines.length === 3);
      expect(lines[2]).toMatchObject({ id: 2, result: { resultType: 'complete' } });
    } finally {
      await moduleRef.close();
    }
  });

  it('ends it at shutdown with notifications/cancelled for the listen id, then the listen result', async () => {
    const { moduleRef, lines, send } = await stdioHost();
    send({
      id: 9,
      method: 'subscriptions/listen',
      params: { notifications: { promptsListChanged: true }, _meta: META },
    });
    await waitFor(() => lines.length === 1);
    await moduleRef.close();
    expect(lines.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 9, reason: 'host shutting down', _meta: { [SUBSCRIPTION_ID]: 9 } },
      },
      { jsonrpc: '2.0', id: 9, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 9 } } },
    ]);
  });
});

describe('subscriptions/listen streams of a host without authentication, counted per client address', () => {
  let app: INestApplication;
  let url: string;
  const open: SseReader[] = [];

  beforeAll(async () => {
    // Every caller is the same principal: the cap (1 here, 100 by default) must hold per client.
    ({ app, url } = await startFixtureApp({
      auth: { mode: 'none', principal: { id: 'local-dev' } },
      maxSessionsPerPrincipal: 1,
    }));
  });
  afterAll(async () => {
    await Promise.all(open.splice(0).map((stream) => stream.cancel()));
    await app?.close();
  });

  /** A listen stream opened from `address` (a loopback address of its own). */
  const listenFrom = (address: string, id: number) =>
    post2026(
      url,
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      {},
      { id, fetch: fetchFrom(address) },
    );

  it('refuses a client a second stream past the cap, and still gives another client one', async () => {
    const first = await listenFrom('127.0.0.1', 1);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    open.push(new SseReader(first));
    expect(await open[0].next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });

    const refused = await listenFrom('127.0.0.1', 2);
    const { error } = (await refused.json()) as { error: { code: number; message: string } };
    expect(error).toEqual({
      code: -32602,
      message: 'Too many subscriptions: this caller already holds 1 (maxSessionsPerPrincipal); close one first',
    });

    const other = await listenFrom('127.0.0.2', 3);
    expect(other.headers.get('content-type')).toBe('text/event-stream');
    open.push(new SseReader(other));
    expect(await open[1].next()).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    });
    expect(app.get(ListenSubscriptions).size).toBe(2);
  });
});
