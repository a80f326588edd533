// @rekog/mcp-nest 2.x as its README shows it: an `@McpController()` class whose methods are
// `@Tool`, `@Prompt` and `@Resource` handlers (zod schemas), served by an `McpStrategy` with a
// `StreamableHttpTransport` on the Nest app's Express adapter — stateless and with JSON answers,
// like `ours`, serving both revisions ('dual'). The same catalog as the other servers: `add`, 100
// no-op tools, 100 prompts, 100 resources. Plain JavaScript: the decorators are applied by hand.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import { McpController, McpStrategy, Prompt, Resource, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { NOOP_TOOLS, PROMPTS, RESOURCES } from '../catalog.mjs';

class BenchController {}

/** Adds `handler` as the method `name` of the controller, with `decorator` applied to it. */
function handler(name, decorator, body) {
  Object.defineProperty(BenchController.prototype, name, { value: body, writable: true, configurable: true });
  Reflect.decorate(
    [decorator],
    BenchController.prototype,
    name,
    Object.getOwnPropertyDescriptor(BenchController.prototype, name),
  );
}

handler(
  'add',
  Tool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    annotations: { readOnlyHint: true },
  }),
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);
for (const tool of NOOP_TOOLS)
  handler(
    tool.name,
    Tool({ name: tool.name, description: tool.description, parameters: z.object({ value: z.string().optional() }) }),
    () => ({ content: [{ type: 'text', text: 'ok' }] }),
  );
for (const prompt of PROMPTS)
  handler(
    prompt.name,
    Prompt({
      name: prompt.name,
      description: prompt.description,
      parameters: z.object({ topic: z.string().describe('What about') }),
    }),
    ({ topic }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic}` } }] }),
  );
for (const resource of RESOURCES)
  handler(
    resource.name,
    Resource({
      uri: resource.uri,
      name: resource.name,
      description: resource.description,
      mimeType: resource.mimeType,
    }),
    ({ uri }) => ({ contents: [{ uri, mimeType: 'text/plain', text: resource.name }] }),
  );
McpController()(BenchController);

class BenchModule {}
Module({ controllers: [BenchController] })(BenchModule);

const mcp = new McpStrategy({
  name: 'mcp-nest',
  version: '1.0.0',
  transports: [new StreamableHttpTransport({ statefulMode: false, enableJsonResponse: true })],
});
const app = await NestFactory.create(BenchModule, { logger: ['error'] });
mcp.setHttpAdapter(app.getHttpAdapter());
app.connectMicroservice({ strategy: mcp });
await app.startAllMicroservices();
await app.listen(Number(process.env.PORT ?? 3006), '127.0.0.1');
