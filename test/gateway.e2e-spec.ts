import { spawn, type ChildProcess } from 'node:child_process';
import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { McpModule } from '#libs/hosting';
import { McpGateway } from '#libs/gateway';
import { hashApiKey } from '#libs/security';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';
import { freePort } from './support/free-port';
import { waitFor, waitForAsync } from './support/wait-for';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

/** `@modelcontextprotocol/server-everything`, the reference server nobody here wrote. */
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const KEYS = { all: 'gateway-all-0123456789', reader: 'gateway-reader-0123456789' };

/** server-everything over Streamable HTTP on `port`, resolved once it listens. */
async function startEverythingHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
  });
  return child;
}

const stop = (child: ChildProcess | undefined) =>
  new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const names = (tools: Tool[]) => tools.map((tool) => tool.name);

describe('the gateway: server-everything over stdio and Streamable HTTP behind one endpoint', () => {
  let httpPort: number;
  let httpUpstream: ChildProcess | undefined;
  let app: INestApplication;
  let url: string;
  let client: Client;
  let gateway: McpGateway;

  beforeAll(async () => {
    httpPort = await freePort();
    httpUpstream = await startEverythingHttp(httpPort);
    app = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'gateway',
          version: '1.0.0',
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.all), principal: 'operator', scopes: ['web'] },
              { hash: hashApiKey(KEYS.reader), principal: 'reader', scopes: [] },
            ],
          },
          gateway: {
            upstreams: [
              {
                name: 'everything',
                transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
                tools: { deny: ['get-env'] },
                reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
              },
              {
                name: 'web',
                transport: { type: 'http', url: `http://127.0.0.1:${httpPort}/mcp` },
                separator: '_',
                tools: { allow: ['echo', 'get-sum'] },
                prompts: { allow: [] },
                resources: { allow: [] },
                scopes: ['web'],
                timeoutMs: 2_000,
                circuitBreaker: { failureThreshold: 2, openMs: 60_000 },
                reconnect: { initialDelayMs: 100, maxDelayMs: 300 },
              },
            ],
          },
        }),
      ],
    });
    url = await baseUrlOf(app);
    gateway = app.get(McpGateway);
    client = await connectHttpClient(
      `${url}/mcp`,
      { 'x-api-key': KEYS.all },
      { capabilities: { elicitation: { form: {} } } },
    );
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await stop(httpUpstream);
  });

  it("lists both upstreams' tools under their namespaces, filtered, beside each other", async () => {
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual(
      expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__trigger-long-running-operation']),
    );
    expect(names(tools)).not.toContain('everything__get-env');
    expect(
      names(tools)
        .filter((name) => name.startsWith('web_'))
        .sort(),
    ).toEqual(['web_echo', 'web_get-sum']);
    const echo = tools.find((tool) => tool.name === 'everything__echo')!;
    expect(echo.inputSchema.properties).toHaveProperty('message');
    expect(echo._meta?.['nest-mcp-host/upstream']).toEqual({ upstream: 'everything', tool: 'echo' });
  });

  it('passes no MCP Apps view of server-everything: it has none (docs/apps.md), so nothing ui:// is listed', async () => {
    const { tools } = await client.listTools();
    expect(
      tools.filter((tool) => tool._meta?.ui !== undefined || tool._meta?.['ui/resourceUri'] !== undefined),
    ).toEqual([]);
    const resources = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? undefined : { cursor });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    expect(resources.length).toBeGreaterThan(0);
    expect(
      resources.filter((resource) => resource.uri.includes('ui://') || resource.mimeType?.includes('mcp-app')),
    ).toEqual([]);
  });

  it('calls tools on both upstreams and returns their results', async () => {
    const echoed = (await client.callTool({
      name: 'everything__echo',
      arguments: { message: 'hello' },
    })) as CallToolResult;
    expect(textOf(echoed)).toBe('Echo: hello');
    const sum = (await client.callTool({ name: 'web_get-sum', arguments: { a: 2, b: 40 } })) as CallToolResult;
    expect(textOf(sum)).toContain('42');
  });

  it('hides an upstream from a key without its scope, and refuses its calls', async () => {
    const reader = await connectHttpClient(`${url}/mcp`, { 'x-api-key': KEYS.reader });
    try {
      const { tools } = await reader.listTools();
      expect(names(tools).some((name) => name.startsWith('web_'))).toBe(false);
      expect(names(tools)).toContain('everything__echo');
      await expect(reader.callTool({ name: 'web_echo', arguments: { message: 'x' } })).rejects.toThrow(/web_echo/);
    } finally {
      await reader.close();
    }
  });

  it("relays the upstream's progress, and cancels the upstream call when the client cancels", async () => {
    const seen: Progress[] = [];
    const done = (await client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      undefined,
      { onprogress: (progress) => seen.push(progress) },
    )) as CallToolResult;
    expect(textOf(done)).toMatch(/completed/);
    expect(seen.map(({ progress, total }) => [progress, total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);

    const controller = new AbortController();
    const cancelled = client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('enough') },
    );
    await expect(cancelled).rejects.toThrow();
    // The gateway is still served, and so is the upstream.
    expect(
      textOf((await client.callTool({ name: 'everything__echo', arguments: { message: 'still' } })) as CallToolResult),
    ).toBe('Echo: still');
  });

  it('reads an upstream resource template through its rewritten URI, and gets prompts', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const template = resourceTemplates.find((t) =>
      t.uriTemplate.startsWith('everything+demo://resource/dynamic/text/'),
    );
    expect(template).toBeDefined();
    const read = await client.readResource({ uri: 'everything+demo://resource/dynamic/text/7' });
    expect(read.contents[0].uri).toBe('everything+demo://resource/dynamic/text/7');
    expect((read.contents[0] as { text: string }).text).toContain('7');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain('everything__args-prompt');
    const prompt = await client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Lyon' } });
    expect(JSON.stringify(prompt.messages)).toContain('Lyon');
  });

  it("relays a subscription upstream, and the upstream's updates to the subscribed client under the gateway URI", async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => void updated.push(params.uri));
    const uri = 'everything+demo://resource/static/document/architecture.md';
    await client.subscribeResource({ uri });
    // server-everything sends an update for each subscribed resource when its updates are switched on.
    await client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
    await waitFor(() => updated.includes(uri));
    expect(updated.every((each) => each.startsWith('everything+'))).toBe(true);
    await client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
  });

  it("relays the upstream's elicitation to the client that made the call, and its answer back", async () => {
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    const result = (await client.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    })) as CallToolResult;
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
  });

  it('opens the circuit of an upstream killed under load, reports it in readiness, and recovers when it returns', async () => {
    // Four clients' worth of calls in a loop; the upstream is killed while they run.
    const outcomes: string[] = [];
    let loading = true;
    const workers = Array.from({ length: 4 }, async () => {
      while (loading) {
        const result = (await client.callTool({ name: 'web_echo', arguments: { message: 'x' } })) as CallToolResult;
        outcomes.push(result.isError ? textOf(result) : 'ok');
      }
    });
    await waitFor(() => outcomes.length >= 20);
    await stop(httpUpstream);
    await waitFor(() => gateway.status().find(({ name }) => name === 'web')?.circuit === 'open', 10_000);
    const openedAt = outcomes.length;
    await waitFor(() => outcomes.length >= openedAt + 8);
    loading = false;
    await Promise.all(workers);
    // Every call was answered: by the upstream, or with an error that says what happened to it.
    const unexplained = outcomes.filter(
      (outcome) =>
        outcome !== 'ok' &&
        !/^The upstream MCP server web (could not be reached|did not answer|is not connected|is failing)/.test(outcome),
    );
    expect(unexplained).toEqual([]);
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill('ok'));
    // While the circuit is open, calls are refused at once.
    expect(outcomes.slice(-4)).toEqual(
      Array(4).fill(
        expect.stringMatching(/The upstream MCP server web is failing and calls to it are paused; retry in \d+ s\./),
      ),
    );
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('upstream:web');
    expect(gateway.status().find(({ name }) => name === 'web')).toMatchObject({ circuit: 'open' });

    httpUpstream = await startEverythingHttp(httpPort);
    await waitFor(() => gateway.status().find(({ name }) => name === 'web')?.state === 'connected', 10_000);
    const back = (await client.callTool({ name: 'web_echo', arguments: { message: 'back' } })) as CallToolResult;
    expect(textOf(back)).toBe('Echo: back');
    const recovered = await fetch(`${url}/health/ready`);
    expect(recovered.status).toBe(200);
    // What readiness and the dashboard's dependencies panel show of the upstream.
    const { details } = (await recovered.json()) as {
      details: Record<string, { status: string; [key: string]: unknown }>;
    };
    expect(details['upstream:web']).toMatchObject({
      status: 'up',
      transport: 'http',
      circuit: 'closed',
      requests: expect.any(Number),
      failures: expect.any(Number),
      latencyP50Ms: expect.any(Number),
    });
    expect(details['upstream:web'].failures).toBeGreaterThanOrEqual(2);
  });

  it('restarts a stdio upstream that crashed, and leaves no process behind at shutdown', async () => {
    const before = gateway.status().find(({ name }) => name === 'everything')!;
    expect(before.pid).toEqual(expect.any(Number));
    process.kill(before.pid!, 'SIGKILL');
    await waitFor(() => {
      const now = gateway.status().find(({ name }) => name === 'everything')!;
      return now.state === 'connected' && now.pid !== before.pid;
    }, 10_000);
    const after = gateway.status().find(({ name }) => name === 'everything')!;
    expect(after.reconnects).toBeGreaterThan(before.reconnects);
    const echoed = (await client.callTool({
      name: 'everything__echo',
      arguments: { message: 'again' },
    })) as CallToolResult;
    expect(textOf(echoed)).toBe('Echo: again');

    await client.close();
    await app.close();
    await waitForAsync(async () => !alive(after.pid!), 5_000);
  });
});
