import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the hostile upstream does; a test changes it between steps. */
export interface HostileBehaviour {
  /** How many generated tools `tools/list` gives (beside `echo`, `slow` and `huge`), and how many per page. */
  tools: number;
  pageSize: number;
  /** Part of each generated tool's name (`gen1_tool_7`): a new generation replaces every generated tool. */
  generation: string;
  /** Properties of each generated tool's input schema, each with a few constraints (what a validator costs to compile). */
  schemaProperties: number;
  /** Every page has a `nextCursor`, however many tools there are. */
  endlessPages: boolean;
  /** The bytes of the `huge` tool's answer. */
  hugeBytes: number;
  /** How long the `slow` tool takes to answer, in ms. */
  slowMs: number;
  /** How long a read of the list (its first page) takes to be answered, in ms. */
  listDelayMs: number;
}

/** What the hostile upstream saw. */
export interface HostileCounts {
  /** TCP connections accepted, and open now; the most open at once since `resetPeak`. */
  connections: number;
  open: number;
  peakOpen: number;
  /** `tools/list` requests without a cursor (a read of the list), and pages served in all. */
  listReads: number;
  pages: number;
  /** Bytes of `huge` answers written before the client hung up or the answer ended. */
  hugeBytesSent: number;
  /** GET streams opened. */
  streams: number;
}

/** An MCP server (2025-11-25, Streamable HTTP) built to hurt its client: see `startHostileUpstream`. */
export interface HostileUpstream {
  /** Its MCP endpoint. */
  readonly url: string;
  readonly behaviour: HostileBehaviour;
  readonly counts: HostileCounts;
  /** Whether a GET stream is open now. */
  streamOpen(): boolean;
  /** From now, `peakOpen` is the most connections open at once. */
  resetPeak(): void;
  /** Sends `count` `notifications/tools/list_changed` on the GET streams, in one write. */
  announceChanges(count: number): void;
  /**
   * Writes one SSE event of `bytes` bytes on the GET streams, never ending it; resolves with the
   * bytes written when the client hung up, or all of them.
   */
  sendEndlessEvent(bytes: number): Promise<number>;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'a');

/** Writes `bytes` of `a` to `response`, as fast as it takes them; stops when it closes. @returns what was written */
async function writeFiller(response: ServerResponse, bytes: number): Promise<number> {
  let sent = 0;
  while (sent < bytes && !response.destroyed) {
    const size = Math.min(CHUNK.length, bytes - sent);
    const flowing = response.write(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size));
    sent += size;
    if (!flowing)
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
  }
  return sent;
}

/** One generated tool: `properties` string properties, each constrained, and a short description. */
function generatedTool(generation: string, index: number, properties: number) {
  const schema: Record<string, unknown> = {};
  for (let p = 0; p < properties; p++)
    schema[`field_${p}`] = {
      type: 'string',
      description: `Field ${p} of tool ${index}`,
      minLength: 1,
      maxLength: 64 + p,
      pattern: `^[a-z]{1,${p + 1}}[0-9]*$`,
    };
  return {
    name: `${generation}_tool_${index}`,
    description: `Generated tool ${index} of ${generation}`,
    inputSchema: { type: 'object', properties: schema, required: ['field_0'] },
  };
}

const FIXED_TOOLS = [
  { name: 'echo', description: 'Answers at once', inputSchema: { type: 'object', properties: {} } },
  { name: 'slow', description: 'Answers after a while', inputSchema: { type: 'object', properties: {} } },
  { name: 'huge', description: 'Answers with far too much text', inputSchema: { type: 'object', properties: {} } },
];

/**
 * A deliberately hostile MCP upstream (2025-11-25, Streamable HTTP with JSON answers and a GET
 * stream): as `behaviour` says, it lists thousands of tools with costly schemas, or pages that
 * never end; its `huge` tool answers with as many bytes as asked (written as the client reads
 * them, never held); it floods `list_changed` or an endless event on its GET streams; and it
 * counts the connections it accepts and holds open at once.
 */
export async function startHostileUpstream(behaviour: Partial<HostileBehaviour> = {}): Promise<HostileUpstream> {
  const state: HostileBehaviour = {
    tools: 0,
    pageSize: 100,
    generation: 'gen1',
    schemaProperties: 4,
    endlessPages: false,
    hugeBytes: 0,
    slowMs: 100,
    listDelayMs: 0,
    ...behaviour,
  };
  const counts: HostileCounts = {
    connections: 0,
    open: 0,
    peakOpen: 0,
    listReads: 0,
    pages: 0,
    hugeBytesSent: 0,
    streams: 0,
  };
  const streams = new Set<ServerResponse>();

  const answer = (response: ServerResponse, id: unknown, result: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };

  const page = (cursor: unknown) => {
    const index = typeof cursor === 'string' ? Number(cursor) : 0;
    if (index === 0) counts.listReads++;
    counts.pages++;
    const start = index * state.pageSize;
    const end = Math.min(state.tools, start + state.pageSize);
    const tools = [];
    if (index === 0) tools.push(...FIXED_TOOLS);
    for (let i = start; i < end; i++) tools.push(generatedTool(state.generation, i, state.schemaProperties));
    const more = state.endlessPages || end < state.tools;
    return { tools, ...(more && { nextCursor: String(index + 1) }) };
  };

  const call = async (response: ServerResponse, id: unknown, name: unknown) => {
    if (name === 'huge') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      counts.hugeBytesSent += await writeFiller(response, state.hugeBytes);
      return void response.end('"}]}}');
    }
    if (name === 'slow') await new Promise((resolve) => setTimeout(resolve, state.slowMs));
    answer(response, id, { content: [{ type: 'text', text: `${String(name)}: ok` }] });
  };

  const post = async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) return void response.writeHead(202).end();
    switch (message.method) {
      case 'initialize':
        response.setHeader('mcp-session-id', 'hostile-session');
        return answer(response, message.id, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'hostile', version: '1.0.0' },
        });
      case 'ping':
        return answer(response, message.id, {});
      case 'tools/list': {
        const listed = page(message.params?.cursor);
        if (message.params?.cursor === undefined && state.listDelayMs > 0)
          await new Promise((resolve) => setTimeout(resolve, state.listDelayMs));
        return answer(response, message.id, listed);
      }
      case 'tools/call':
        return call(response, message.id, message.params?.name);
      default:
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }),
        );
    }
  };

  const server = createServer((request, response) => {
    if (request.method === 'POST') return void post(request, response).catch(() => response.destroy());
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(': stream\n\n');
      streams.add(response);
      counts.streams++;
      return void response.on('close', () => streams.delete(response));
    }
    response.writeHead(request.method === 'DELETE' ? 200 : 405).end();
  });
  server.on('connection', (socket) => {
    counts.connections++;
    counts.open++;
    counts.peakOpen = Math.max(counts.peakOpen, counts.open);
    socket.on('close', () => counts.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    behaviour: state,
    counts,
    streamOpen: () => streams.size > 0,
    resetPeak: () => void (counts.peakOpen = counts.open),
    announceChanges(count) {
      const event = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n';
      for (const stream of streams) stream.write(event.repeat(count));
    },
    async sendEndlessEvent(bytes) {
      const sent = await Promise.all(
        [...streams].map(async (stream) => {
          stream.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"');
          return writeFiller(stream, bytes);
        }),
      );
      return Math.max(0, ...sent);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
