// fastmcp (punkpeye/fastmcp, on the official SDK v1) as its README shows it: a `FastMCP` server
// with `addTool` / `addPrompt` / `addResource` (zod schemas), started on its own HTTP stream
// transport — stateless and with JSON answers, like `ours`. The same catalog as the other
// servers: `add`, 100 no-op tools, 100 prompts, 100 resources. 2025-11-25 only (SDK v1).
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { NOOP_TOOLS, PROMPTS, RESOURCES } from '../catalog.mjs';

// Quiet, as the other servers are: its default logger writes a debug line per request.
const quiet = () => undefined;
const logger = { debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error };
const server = new FastMCP({ name: 'fastmcp', version: '1.0.0', ping: { enabled: false }, logger });
server.addTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  annotations: { readOnlyHint: true },
  execute: async ({ a, b }) => String(a + b),
});
for (const tool of NOOP_TOOLS)
  server.addTool({
    name: tool.name,
    description: tool.description,
    parameters: z.object({ value: z.string().optional() }),
    execute: async () => 'ok',
  });
for (const prompt of PROMPTS)
  server.addPrompt({
    name: prompt.name,
    description: prompt.description,
    arguments: [{ name: 'topic', description: 'What about', required: true }],
    load: async ({ topic }) => `Tell me about ${topic}`,
  });
for (const resource of RESOURCES)
  server.addResource({
    uri: resource.uri,
    name: resource.name,
    description: resource.description,
    mimeType: resource.mimeType,
    load: async () => ({ text: resource.name }),
  });

await server.start({
  transportType: 'httpStream',
  httpStream: {
    port: Number(process.env.PORT ?? 3007),
    host: '127.0.0.1',
    endpoint: '/mcp',
    stateless: true,
    enableJsonResponse: true,
  },
});
