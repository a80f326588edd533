// The official SDK v1 stateful server as its documentation shows it: one McpServer and one
// StreamableHTTPServerTransport per session, zod schemas, JSON responses (enableJsonResponse).
// Served on node:http rather than the documented Express app, which spares the SDK Express's own
// cost: these are the SDK's best figures, not its typical ones.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { NOOP_TOOLS, PROMPTS, RESOURCES } from './catalog.mjs';

function buildServer() {
  const server = new McpServer({ name: 'sdk-v1', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  for (const tool of NOOP_TOOLS) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: { value: z.string().optional() } },
      async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }),
    );
  }
  for (const prompt of PROMPTS) {
    server.registerPrompt(
      prompt.name,
      { description: prompt.description, argsSchema: { topic: z.string().describe('What about') } },
      ({ topic }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic}` } }],
      }),
    );
  }
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      resource.uri,
      { description: resource.description, mimeType: resource.mimeType },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: resource.name }],
      }),
    );
  }
  return server;
}

const transports = new Map();

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (error) {
        reject(error);
      }
    });
  });
}

function sendError(res, status, code, message) {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

createServer(async (req, res) => {
  let body;
  try {
    body = req.method === 'POST' ? await readJson(req) : undefined;
  } catch {
    sendError(res, 400, -32700, 'Parse error');
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (sessionId && !transport) {
    sendError(res, 404, -32001, 'Session not found');
    return;
  }
  if (!transport && isInitializeRequest(body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
    await buildServer().connect(transport);
  }
  if (!transport) {
    sendError(res, 400, -32000, 'Bad Request: no valid session id');
    return;
  }
  await transport.handleRequest(req, res, body);
}).listen(Number(process.env.PORT ?? 3004), '127.0.0.1');
