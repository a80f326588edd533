import type { DynamicModule, INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpModuleOptions } from '#libs/hosting';
import { FixtureModule } from '../fixtures/fixture.module';

/**
 * Compiles a testing module of `metadata` and serves it, without logs, on a free loopback port.
 * @param configure what to set before it listens (a global prefix, versioning)
 */
export async function startTestApp(
  metadata: ModuleMetadata,
  configure?: (app: INestApplication) => void,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  configure?.(app);
  await app.listen(0, '127.0.0.1');
  return app;
}

/** Where a listening app is reached on loopback (`http://127.0.0.1:PORT`). */
export async function baseUrlOf(app: INestApplication): Promise<string> {
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

/** Starts the fixture app on a free loopback port. */
export async function startFixtureApp(
  options: Partial<McpModuleOptions> = {},
  module: (options: Partial<McpModuleOptions>) => DynamicModule = (host) => FixtureModule.register(host),
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [module(options)] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
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
