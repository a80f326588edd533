import { PassThrough } from 'node:stream';
import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioTransport, type McpModuleOptions } from '#libs/hosting';
import { FixtureModule } from '../fixtures/fixture.module';
import { startFixtureApp } from './fixture-app';
import { StreamClientTransport } from './stream-client.transport';

export type TransportName = 'http' | 'stdio';

/** A fixture app and an SDK client connected to it over the named transport. */
export interface Connected {
  app: INestApplicationContext;
  client: Client;
  close: () => Promise<void>;
}

/**
 * Starts the fixture app (or the app `module` builds from the host options) and connects a
 * client with `options` (capabilities) over `transport`.
 */
export async function connect(
  transport: TransportName,
  options: ClientOptions = {},
  hostOptions: Partial<McpModuleOptions> = {},
  module: (hostOptions: Partial<McpModuleOptions>) => DynamicModule = (host) => FixtureModule.register(host),
): Promise<Connected> {
  const client = new Client({ name: `e2e-${transport}`, version: '1.0.0' }, options);
  if (transport === 'http') {
    const { app, url } = await startFixtureApp(hostOptions, module);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return { app, client, close: async () => (await client.close(), await app.close()) };
  }
  const moduleRef = await Test.createTestingModule({ imports: [module({ ...hostOptions, http: false })] }).compile();
  await moduleRef.init();
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  void moduleRef.get(StdioTransport).connect(toServer, fromServer);
  await client.connect(new StreamClientTransport(fromServer, toServer));
  return { app: moduleRef, client, close: async () => (await client.close(), await moduleRef.close()) };
}
