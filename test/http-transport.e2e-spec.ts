import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PipelineLog } from './fixtures/fixture.tools';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { waitFor } from './support/wait-for';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe.each(['stateful', 'stateless'] as const)('Streamable HTTP (%s) with the SDK client', (mode) => {
  let app: INestApplication;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    ({ app, url } = await startFixtureApp({ mode }));
    client = await connectHttpClient(url);
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('initializes with the server info, instructions and capabilities', () => {
    expect(client.getServerVersion()).toEqual({ name: 'fixture', version: '1.2.3' });
    expect(client.getInstructions()).toBe('Fixture tools');
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it('lists every discovered tool across pages', async () => {
    const first = await client.listTools();
    expect(first.tools).toHaveLength(5);
    expect(first.nextCursor).toEqual(expect.any(String));
    const names = [...first.tools.map((tool) => tool.name)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.listTools({ cursor });
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    }
    expect(names.sort()).toEqual(
      [
        'add',
        'askModel',
        'askUser',
        'countSlowly',
        'deleteArchive',
        'echo',
        'editArticle',
        'failBusiness',
        'failInternal',
        'forbidden',
        'greet',
        'instanceNumber',
        'listRoots',
        'mixed',
        'openConsent',
        'sampleWithTools',
        'register',
        'secret',
        'shout',
        'slow',
        'teapot',
        'weather',
        'whoami',
      ].sort(),
    );
  });

  it('rejects a cursor it did not issue with -32602', async () => {
    await expect(client.listTools({ cursor: 'bm90LWEtY3Vyc29y' })).rejects.toMatchObject({ code: -32602 });
  });

  it('publishes JSON Schemas generated from DTOs, zod and raw schemas', async () => {
    const tools = new Map<
      string,
      { inputSchema: Record<string, unknown>; outputSchema?: unknown; annotations?: unknown }
    >();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      page.tools.forEach((tool) => tools.set(tool.name, tool));
      cursor = page.nextCursor;
    } while (cursor);
    expect(tools.get('add')).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      annotations: { readOnlyHint: true },
    });
    expect(tools.get('register')!.inputSchema).toMatchObject({
      properties: {
        name: { type: 'string', maxLength: 20 },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        tier: { enum: ['gold', 'silver'] },
      },
      required: ['name', 'age'],
      $defs: { AddressDto: { properties: { city: { type: 'string' } } } },
    });
    expect(tools.get('greet')!.inputSchema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
    });
    expect(tools.get('weather')!.outputSchema).toMatchObject({
      type: 'object',
      properties: { celsius: { type: 'number' } },
    });
  });

  it('calls a DTO tool and maps a string to text content', async () => {
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('answers invalid DTO arguments with isError naming each field', async () => {
    const result = (await client.callTool({
      name: 'register',
      arguments: { name: 'x'.repeat(25), age: -1, address: { city: 7 } },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const message = textOf(result);
    expect(message).toContain('Invalid arguments for tool "register"');
    expect(message).toMatch(/- name: name must be shorter than or equal to 20 characters/);
    expect(message).toMatch(/- age: age must not be less than 0/);
    expect(message).toMatch(/- address\.city: must be a string, not the number 7$/m);
  });

  it('hands the tool a DTO instance', async () => {
    const result = await client.callTool({ name: 'register', arguments: { name: 'Ada', age: 36 } });
    expect(result.structuredContent).toEqual({ registered: 'Ada', isDto: true });
  });

  it('validates zod input, applying defaults', async () => {
    expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'Bo' } }))).toBe('hello Bo');
    const bad = (await client.callTool({ name: 'greet', arguments: { name: '', times: 0 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/- name: .*\n- times: /);
  });

  it('validates raw JSON Schema input and binds a single argument', async () => {
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
    const bad = (await client.callTool({
      name: 'echo',
      arguments: { message: 'far too long a message', extra: 1 },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('message: must NOT have more than 10 characters');
    expect(textOf(bad)).toContain('extra: is not an accepted argument');
  });

  it('returns validated structured content with its JSON as text', async () => {
    const result = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"city":"Oslo","celsius":21.5}' }],
      structuredContent: { city: 'Oslo', celsius: 21.5 },
    });
    const bad = (await client.callTool({ name: 'weather', arguments: { city: 'bad' } })) as CallToolResult;
    expect(bad).toMatchObject({ isError: true });
    expect(textOf(bad)).toContain('does not match its output schema');
  });

  it('passes content blocks through', async () => {
    expect((await client.callTool({ name: 'mixed' })).content).toEqual([
      { type: 'text', text: 'a picture:' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
  });

  it('reports business errors verbatim and hides internal ones', async () => {
    expect(await client.callTool({ name: 'failBusiness' })).toEqual({
      content: [{ type: 'text', text: 'Ticket 42 is already closed; reopen it first.' }],
      isError: true,
    });
    const internal = (await client.callTool({ name: 'failInternal' })) as CallToolResult;
    expect(internal.isError).toBe(true);
    expect(textOf(internal)).toMatch(/^Tool "failInternal" failed with an internal error \(reference [0-9a-f-]{36}\)/);
    expect(textOf(internal)).not.toContain('postgres');
  });

  it('answers an unknown tool with -32602', async () => {
    const error = await client.callTool({ name: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: nope') });
  });

  it('runs class guards: denied without the header, allowed with it', async () => {
    expect(await client.callTool({ name: 'secret' })).toEqual({
      content: [{ type: 'text', text: 'Forbidden resource' }],
      isError: true,
    });
    const allowed = await connectHttpClient(url, { 'x-allow': 'yes' });
    expect(textOf(await allowed.callTool({ name: 'secret' }))).toBe('the secret');
    await allowed.close();
    expect(app.get(PipelineLog).events).toContain('guard:mcp');
  });

  it('runs method interceptors and filters, and maps Nest exceptions', async () => {
    expect(textOf(await client.callTool({ name: 'shout', arguments: { word: 'quiet' } }))).toBe('QUIET');
    expect(app.get(PipelineLog).events).toContain('interceptor:mcp');
    expect(await client.callTool({ name: 'teapot', arguments: {} })).toEqual({
      content: [{ type: 'text', text: "filtered: I'm a teapot" }],
      isError: true,
    });
    expect(await client.callTool({ name: 'forbidden' })).toEqual({
      content: [{ type: 'text', text: 'Only supervisors may do this' }],
      isError: true,
    });
  });

  it('resolves request-scoped providers per call', async () => {
    const first = textOf(await client.callTool({ name: 'instanceNumber' }));
    const second = textOf(await client.callTool({ name: 'instanceNumber' }));
    expect(Number(second)).toBeGreaterThan(Number(first));
  });

  it('gives the tool its call context', async () => {
    const result = await client.callTool({ name: 'whoami' });
    expect(result.structuredContent).toEqual({
      transport: 'http',
      sessionId:
        mode === 'stateful' ? client.transport && (client.transport as { sessionId?: string }).sessionId : null,
      protocolVersion: '2025-11-25',
      client: mode === 'stateful' ? 'e2e-client' : null,
    });
  });

  it('streams progress and log notifications, then the result', async () => {
    const progress: number[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logs.push(notification.params.data),
    );
    const result = await client.callTool({ name: 'slow' }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
      timeout: 10_000,
    });
    expect(textOf(result)).toBe('finished');
    await waitFor(() => progress.length === 50, 2_000); // the SDK client dispatches notifications asynchronously
    expect(progress).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await waitFor(() => logs.includes('step 50'), 2_000);
  });

  // Without a session, notifications/cancelled cannot be tied to a request of the same client,
  // so only sessions honour it; any call is cancelled by closing its request (http-edge-cases).
  const sessionOnly = mode === 'stateful' ? it : () => undefined;
  sessionOnly('aborts the call when the client cancels it', async () => {
    const log = app.get(PipelineLog);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow' }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress === 3) controller.abort('user pressed stop');
      },
    });
    await expect(call).rejects.toThrow();
    await waitFor(() => log.events.some((event) => event.startsWith('slow:aborted@')));
    const step = Number(log.events.find((event) => event.startsWith('slow:aborted@'))!.split('@')[1]);
    expect(step).toBeLessThan(50);
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
  });
});

describe('unknownArguments', () => {
  it('strips undeclared arguments when the host is configured to, for tools and prompts', async () => {
    const { app, url } = await startFixtureApp({ unknownArguments: 'strip' });
    const client = await connectHttpClient(url);
    try {
      expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2, c: 100 } })).toEqual({
        content: [{ type: 'text', text: '3' }],
      });
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi', extra: 1 } }))).toBe('hi');
      expect(
        (await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada', role: 'admin' } })).messages,
      ).toHaveLength(1);
    } finally {
      await client.close();
      await app.close();
    }
  });

  it('refuses an unknown policy at start-up, saying which ones there are', async () => {
    await expect(startFixtureApp({ unknownArguments: 'ignore' as 'allow' })).rejects.toThrow(
      `McpModule option "unknownArguments": "ignore" is not a policy`,
    );
  });
});
