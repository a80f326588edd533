import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioTransport } from '#libs/hosting';
import { FixtureModule } from './fixtures/fixture.module';
import { PipelineLog } from './fixtures/fixture.tools';
import { StreamClientTransport } from './support/stream-client.transport';
import { rawStdio } from './support/raw-stdio';
import { waitFor } from './support/wait-for';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('stdio transport with the SDK client', () => {
  let app: INestApplicationContext;
  let client: Client;
  let toServer: PassThrough;
  let fromServer: PassThrough;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [FixtureModule.register({ http: false })] }).compile();
    app = moduleRef;
    await app.init();
    toServer = new PassThrough();
    fromServer = new PassThrough();
    void app.get(StdioTransport).connect(toServer, fromServer);
    client = new Client({ name: 'stdio-client', version: '2.0.0' });
    await client.connect(new StreamClientTransport(fromServer, toServer));
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('initializes and lists the same tools as HTTP', async () => {
    expect(client.getServerVersion()).toEqual({ name: 'fixture', version: '1.2.3' });
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toHaveLength(5);
    expect(first.nextCursor).toBeDefined();
  });

  it('validates arguments and calls tools', async () => {
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42');
    const bad = (await client.callTool({ name: 'add', arguments: { a: 'x' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/- a: must be a number, not the string "x"\n- b: b must be a number/);
  });

  it('runs guards and interceptors in the mcp context', async () => {
    expect(textOf(await client.callTool({ name: 'secret' }))).toBe('the secret');
    expect(textOf(await client.callTool({ name: 'shout', arguments: { word: 'stdio' } }))).toBe('STDIO');
    expect(app.get(PipelineLog).events).toEqual(expect.arrayContaining(['guard:mcp', 'interceptor:mcp']));
  });

  it('gives the tool a stdio call context', async () => {
    expect((await client.callTool({ name: 'whoami' })).structuredContent).toEqual({
      transport: 'stdio',
      sessionId: 'stdio',
      protocolVersion: '2025-11-25',
      client: 'stdio-client',
    });
  });

  it('sends progress and log notifications and honours cancellation', async () => {
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    await client.setLoggingLevel('warning');
    const controller = new AbortController();
    const progress: number[] = [];
    const call = client.callTool({ name: 'slow' }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        progress.push(p.progress);
        if (p.progress === 2) controller.abort('stop');
      },
    });
    await expect(call).rejects.toThrow();
    const log = app.get(PipelineLog);
    await waitFor(() => log.events.some((event) => event.startsWith('slow:aborted@')));
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    expect(logs).toEqual([]); // info messages are below the 'warning' level the client set
  });
});

describe('stdio transport framing', () => {
  it('answers malformed lines with -32700 and keeps serving', async () => {
    const { input, lines, close } = await rawStdio();
    input.write('{not json\n');
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n');
    input.write('{"id":2,"method":"ping"}\n');
    await waitFor(() => lines.length === 3);
    expect(lines).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } },
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' } },
      ]),
    );
    await close();
  });
});

describe('stdio message size', () => {
  it('refuses a line longer than bodyLimit with -32600 as soon as it passes the limit, and keeps serving', async () => {
    const { input, lines, close } = await rawStdio({ bodyLimit: '1kb' });
    input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(2_000)}`);
    // Answered before the line even ends: nothing more of it is kept.
    await waitFor(() => lines.length === 1);
    input.write(`${'x'.repeat(50_000)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await waitFor(() => lines.length === 2);
    expect(lines).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            'Invalid Request: the message is longer than 1024 bytes (bodyLimit); it was discarded up to the end of its line',
        },
      },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    await close();
  });

  it('costs a real host no more than its limit for a 64 MB line, with no stack trace on stderr', async () => {
    const host = spawn(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.stdio.js')], {
      env: { ...process.env, AUDIT_SINK: 'off' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    host.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    host.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise((resolve) => host.once('exit', resolve));
    try {
      const write = (data: string) =>
        new Promise<void>((resolve, reject) => host.stdin.write(data, (error) => (error ? reject(error) : resolve())));
      await write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
      const megabyte = 'x'.repeat(2 ** 20);
      for (let i = 0; i < 64; i++) await write(megabyte);
      await write('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
      await waitFor(() => stdout.includes('"id":2'), 30_000);
      const answers = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
      expect(answers.map((answer) => [answer.id, answer.error?.code])).toEqual([
        [null, -32600],
        [2, undefined],
      ]);
      // Peak resident memory of the host (Linux): the line was never held, let alone copied.
      const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${host.pid}/status`, 'utf8'))![1]);
      expect(peakKb).toBeLessThan(300 * 1024);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      host.stdin.end();
      await exited;
    }
  }, 60_000);
});

describe('stdio handshake', () => {
  it('answers only ping before initialize, as Streamable HTTP does', async () => {
    const { input, lines, close } = await rawStdio();
    input.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
    input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await waitFor(() => lines.length === 2);
    input.write(
      '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
    );
    input.write('{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n');
    await waitFor(() => lines.length === 4);
    expect(lines.slice(0, 2)).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message:
            'Invalid Request: the session is not initialized; send initialize first (only ping may come before it)',
        },
      },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(lines[3]).toMatchObject({ id: 4, result: { tools: expect.any(Array) } });
    await close();
  });
});
