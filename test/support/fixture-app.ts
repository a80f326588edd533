import type { DynamicModule, INestApplication, ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import request from 'supertest';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpModuleOptions } from '#libs/hosting';
import { FixtureModule } from '../fixtures/fixture.module';

/** The Nest HTTP platforms the host supports, each spec's apps run on. */
export type TestPlatform = 'express' | 'fastify';

/** For `describe.each(PLATFORMS)('… (%s)', (platform) => …)`: a spec's surfaces on both platforms. */
export const PLATFORMS: [TestPlatform][] = [['express'], ['fastify']];

/** The application of a compiled testing module on `platform`, without logs (not yet listening). */
export function createTestApplication(moduleRef: TestingModule, platform: TestPlatform = 'express'): INestApplication {
  return platform === 'fastify'
    ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
    : moduleRef.createNestApplication({ logger: false });
}

/**
 * Compiles a testing module of `metadata` and serves it, without logs, on a free loopback port.
 * @param configure what to set before it listens (a global prefix, versioning)
 * @param platform the HTTP platform (Express by default)
 */
export async function startTestApp(
  metadata: ModuleMetadata,
  configure?: (app: INestApplication) => void,
  platform: TestPlatform = 'express',
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = createTestApplication(moduleRef, platform);
  configure?.(app);
  await app.listen(0, '127.0.0.1');
  return app;
}

/** A request made to the framework itself, and what it answered. */
export interface FrameworkExchange {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends a request to the application's framework without the `node:http` server's listener in
 * front of it — what Fastify's extra servers (when it listens on `localhost`) and `app.inject()`
 * do: Express's app on a server of supertest's, Fastify's `inject`.
 */
export async function requestThroughFramework(
  app: INestApplication,
  platform: TestPlatform,
  exchange: FrameworkExchange,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { method, url, headers = {}, body } = exchange;
  if (platform === 'fastify') {
    const fastify = app.getHttpAdapter().getInstance() as {
      inject(options: object): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;
    };
    const response = await fastify.inject({ method, url, headers, ...(body !== undefined && { payload: body }) });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  }
  const express = app.getHttpAdapter().getInstance() as Parameters<typeof request>[0];
  const pending = request(express)[method === 'GET' ? 'get' : 'post'](url).set(headers);
  const response = await (body !== undefined ? pending.send(body) : pending).buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  });
  return { status: response.status, headers: response.headers, body: response.body as string };
}

/** Where a listening app is reached on loopback (`http://127.0.0.1:PORT`). */
export async function baseUrlOf(app: INestApplication): Promise<string> {
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

/** Starts the fixture app on a free loopback port, on `platform` (Express by default). */
export async function startFixtureApp(
  options: Partial<McpModuleOptions> = {},
  module: (options: Partial<McpModuleOptions>) => DynamicModule = (host) => FixtureModule.register(host),
  platform: TestPlatform = 'express',
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module(options)] }).compile();
  const app = createTestApplication(moduleRef, platform);
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url: `${base}${options.path ?? '/mcp'}` };
}

/** Connects an SDK `Client` over Streamable HTTP. */
export async function connectHttpClient(
  url: string,
  headers: Record<string, string> = {},
  options: ClientOptions = {},
): Promise<Client> {
  const client = new Client({ name: 'e2e-client', version: '0.0.1' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
