import 'reflect-metadata';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStartupError } from '#libs/core';
import { AdminEndpoint, DependencyHealth, McpCallStats, McpMetrics, McpMetricsEndpoint } from '#libs/operations';
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
