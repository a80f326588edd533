// The official SDK v2 server as its documentation shows it: `createMcpHandler` with one factory
// building a fresh `McpServer` (zod schemas) per request, serving 2026-07-28 requests and, through
// its stateless fallback, 2025-era ones; `toNodeHandler` from @modelcontextprotocol/node mounts it
// on node:http (no framework, as for the v1 peer: the SDK's best figures, not its typical ones).
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { NOOP_TOOLS, PROMPTS, RESOURCES } from './catalog.mjs';

function buildServer() {
  const server = new McpServer({ name: 'sdk-v2', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  for (const tool of NOOP_TOOLS) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: z.object({ value: z.string().optional() }) },
      async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    );
  }
  for (const prompt of PROMPTS) {
    server.registerPrompt(
      prompt.name,
      { description: prompt.description, argsSchema: z.object({ topic: z.string().describe('What about') }) },
      ({ topic }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic}` } }] }),
    );
  }
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      resource.uri,
      { description: resource.description, mimeType: resource.mimeType },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: resource.name }] }),
    );
  }
  return server;
}

createServer(toNodeHandler(createMcpHandler(buildServer))).listen(Number(process.env.PORT ?? 3005), '127.0.0.1');
