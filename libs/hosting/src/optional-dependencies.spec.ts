import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArgs, McpTool } from '#libs/core';
import { Authenticator } from '#libs/security';
import { McpMetrics } from '#libs/operations';
import { McpModule } from './mcp.module';

// Records which optional packages are required (a factory runs on the first `require`, which may
// come from the imports above: hence functions, hoisted, and a set kept on the global).
function mockLoaded(): Set<string> {
  const store = globalThis as { mcpOptionalLoaded?: Set<string> };
  return (store.mcpOptionalLoaded ??= new Set());
}
function mockRecord(name: string): unknown {
  mockLoaded().add(name);
  return jest.requireActual(name);
}
jest.mock('zod', () => mockRecord('zod'));
jest.mock('jose', () => mockRecord('jose'));
jest.mock('prom-client', () => mockRecord('prom-client'));
jest.mock('@modelcontextprotocol/sdk/types.js', () => mockRecord('@modelcontextprotocol/sdk/types.js'));
jest.mock('@nestjs/terminus', () => mockRecord('@nestjs/terminus'));
jest.mock('class-validator', () => mockRecord('class-validator'));
jest.mock('class-transformer', () => mockRecord('class-transformer'));
jest.mock('class-validator-jsonschema', () => mockRecord('class-validator-jsonschema'));
jest.mock('ajv/dist/2020', () => mockRecord('ajv/dist/2020'));
// The policy engine: only with the governance option.
jest.mock('@bufbuild/cel', () => mockRecord('@bufbuild/cel'));
// pg and ioredis are only behind the subpath entries nest-mcp-host/postgres and nest-mcp-host/redis.
jest.mock('pg', () => mockRecord('pg'));
jest.mock('ioredis', () => mockRecord('ioredis'));
// The HTTP platforms: an app loads its own (through Nest), the package neither.
jest.mock('express', () => mockRecord('express'));
jest.mock('fastify', () => mockRecord('fastify'));

@Injectable()
class Tools {
  @McpTool({
    description: 'Looks up by JSON Schema',
    input: { type: 'object', properties: { id: { type: 'string' } } },
  })
  byJsonSchema(@McpArgs() args: { id: string }) {
    return args.id;
  }

  @McpTool({ description: 'Takes no arguments' })
  ping() {
    return 'pong';
  }
}

describe('optional dependencies', () => {
  it('are not loaded by a host that does not use them (no DTO, no zod schema, no OAuth, no metrics, no health probes)', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'lean', version: '1.0.0', http: false, health: false })],
      providers: [Tools],
    })
    class LeanModule {}
    const app = await NestFactory.createApplicationContext(LeanModule, { logger: false });
    try {
      // ajv compiles the JSON Schema tool's validator; nothing else is needed.
      expect([...mockLoaded()]).toEqual(['ajv/dist/2020']);
    } finally {
      await app.close();
    }
  });

  it('are loaded when the feature needing them is used', async () => {
    new Authenticator({ mode: 'apiKey', keys: [] });
    expect(mockLoaded().has('jose')).toBe(false);
    new Authenticator({
      mode: 'oauth',
      issuer: 'https://issuer.example',
      jwksUri: 'https://issuer.example/jwks',
      resource: 'https://mcp.example/mcp',
    });
    expect(mockLoaded().has('jose')).toBe(true);

    const metrics = new McpMetrics({ processMetrics: false });
    expect(mockLoaded().has('prom-client')).toBe(false);
    expect(await metrics.metrics()).toContain('# TYPE mcp_requests_total counter');
    expect(mockLoaded().has('prom-client')).toBe(true);

    expect(mockLoaded().has('@nestjs/terminus')).toBe(false);
    McpModule.forRoot({ name: 'probed', version: '1.0.0', http: false });
    expect(mockLoaded().has('@nestjs/terminus')).toBe(true);

    expect(mockLoaded().has('@bufbuild/cel')).toBe(false);
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'governed',
          version: '1.0.0',
          http: false,
          health: false,
          governance: { policies: [{ id: 'no-blocked', condition: "principal.id != 'blocked'" }] },
        }),
      ],
      providers: [Tools],
    })
    class GovernedModule {}
    const app = await NestFactory.createApplicationContext(GovernedModule, { logger: false });
    try {
      expect(mockLoaded().has('@bufbuild/cel')).toBe(true);
    } finally {
      await app.close();
    }
  });

  // Last: the app loads its platform for the rest of this file. (The other direction, no Fastify
  // code in an Express app, is checked on the packed package by test/adopter.e2e-spec.ts.)
  it('are not loaded for the other platform: an app on Fastify, every HTTP part mounted, loads no Express', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'web', version: '1.0.0', metrics: { token: 'a-scrape-token-0123' } })],
    })
    class HttpModule {}
    expect(mockLoaded().has('express')).toBe(false);
    const { FastifyAdapter } =
      jest.requireActual<typeof import('@nestjs/platform-fastify')>('@nestjs/platform-fastify');
    const app = await NestFactory.create(HttpModule, new FastifyAdapter(), { logger: false });
    try {
      await app.init();
      // Its own platform is seen (the check can fail); the other is not.
      expect(mockLoaded().has('fastify')).toBe(true);
      expect(mockLoaded().has('express')).toBe(false);
    } finally {
      await app.close();
    }
  });
});
