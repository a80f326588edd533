import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStartupError } from '#libs/core';
import { AdminEndpoint, DependencyHealth, McpCallStats, McpMetrics, McpMetricsEndpoint } from '#libs/operations';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { DownstreamIdentity } from '#libs/downstream-identity';
import { McpGateway } from '#libs/gateway';
import { McpGovernance } from '#libs/governance';
import { McpVirtualServers } from '#libs/virtual-servers';
import { McpModule } from './mcp.module';

async function start(mcp: DynamicModule) {
  @Module({ imports: [mcp] })
  class AppModule {}
  return NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
}

describe('McpModule: operations parts', () => {
  it('leaves out the admin dashboard and the metrics endpoint a host cannot serve (no HTTP)', async () => {
    const app = await start(McpModule.forRoot({ name: 'stdio-only', version: '1.0.0', http: false }));
    try {
      expect(() => app.get(AdminEndpoint)).toThrow();
      expect(() => app.get(McpMetricsEndpoint)).toThrow();
      // Public and cheap: always there.
      expect(app.get(McpMetrics)).toBeInstanceOf(McpMetrics);
      expect(app.get(McpCallStats)).toBeInstanceOf(McpCallStats);
      expect(app.get(DependencyHealth)).toBeInstanceOf(DependencyHealth);
    } finally {
      await app.close();
    }
  });

  it('leaves out what forRoot options turn off, and keeps what they leave on', async () => {
    const app = await start(McpModule.forRoot({ name: 'no-admin', version: '1.0.0', admin: false }));
    try {
      expect(() => app.get(AdminEndpoint)).toThrow();
      expect(app.get(McpMetricsEndpoint)).toBeInstanceOf(McpMetricsEndpoint);
    } finally {
      await app.close();
    }
  });

  it('refuses to start when forRootAsync options turn on a part its mount extra left out, saying how to fix it', async () => {
    const mcp = McpModule.forRootAsync({
      useFactory: () => ({ name: 'async', version: '1.0.0' }),
      mount: { admin: false, metrics: false },
    });
    const started = start(mcp);
    await expect(started).rejects.toThrow(McpStartupError);
    await expect(started).rejects.toThrow(
      'McpModule option "admin": the admin dashboard is on (the `admin` option), but McpModule was defined without it (mount: { admin: false })\n' +
        "     fix: set admin: false in the options McpModule.forRootAsync's factory returns, or leave out mount.admin (or set it to true)",
    );
    await expect(started).rejects.toThrow('McpModule option "metrics": metrics are on');
  });

  it('starts with forRootAsync when the options turn off what mount left out', async () => {
    const mcp = McpModule.forRootAsync({
      useFactory: () => ({ name: 'async', version: '1.0.0', admin: false, metrics: false }),
      mount: { admin: false, metrics: false },
    });
    const app = await start(mcp);
    try {
      expect(() => app.get(AdminEndpoint)).toThrow();
      expect(() => app.get(McpMetricsEndpoint)).toThrow();
    } finally {
      await app.close();
    }
  });
});

describe('McpModule: features', () => {
  it('registers no feature that forRoot options leave out, and each one they turn on', async () => {
    const plain = await start(McpModule.forRoot({ name: 'plain', version: '1.0.0', http: false }));
    try {
      for (const feature of [McpGateway, McpVirtualServers, McpGovernance, McpAuthorizationServer, DownstreamIdentity])
        expect(() => plain.get(feature)).toThrow();
    } finally {
      await plain.close();
    }
    const governed = await start(
      McpModule.forRoot({ name: 'governed', version: '1.0.0', http: false, gateway: {}, governance: {} }),
    );
    try {
      expect(governed.get(McpGateway)).toBeInstanceOf(McpGateway);
      expect(governed.get(McpGovernance)).toBeInstanceOf(McpGovernance);
      expect(governed.get(DownstreamIdentity)).toBeInstanceOf(DownstreamIdentity);
      expect(() => governed.get(McpVirtualServers)).toThrow();
    } finally {
      await governed.close();
    }
  });

  it('refuses to start when forRootAsync options turn on a feature its mount extra left out, saying how to fix it', async () => {
    const started = start(
      McpModule.forRootAsync({
        useFactory: () => ({ name: 'async', version: '1.0.0', http: false, governance: {}, toolSearch: true }),
        mount: { governance: false, toolSearch: false, gateway: false },
      }),
    );
    await expect(started).rejects.toThrow(
      'McpModule option "toolSearch": the options need the toolSearch feature, but McpModule was defined without it (mount: { toolSearch: false })\n' +
        "     fix: leave out mount.toolSearch (or set it to true), or leave the toolSearch option out of what McpModule.forRootAsync's factory returns",
    );
    await expect(started).rejects.toThrow('McpModule option "governance": the options need the governance feature');
  });

  it('starts with forRootAsync without the features mount left out and the options leave off', async () => {
    const app = await start(
      McpModule.forRootAsync({
        useFactory: () => ({ name: 'async', version: '1.0.0', http: false }),
        mount: { gateway: false, virtualServers: false, governance: false, downstream: false },
      }),
    );
    try {
      expect(() => app.get(McpGateway)).toThrow();
      expect(() => app.get(McpGovernance)).toThrow();
    } finally {
      await app.close();
    }
  });
});
