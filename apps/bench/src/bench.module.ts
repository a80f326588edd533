import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import {
  McpModule,
  FixedWindowThrottlerStorage,
  hashApiKey,
  McpThrottlerGuard,
  type McpUpstreamOptions,
} from 'nest-mcp-host';
import { AddTool } from './add.tool';
import { CatalogFiller } from './catalog-filler';
import { NoopTools } from './noop.tools';

/** The API key the secured variant accepts (`BENCH_SECURE=1`). */
export const BENCH_API_KEY = 'bench-key-0123456789';

/** What the measured host adds to the plain one. */
export interface BenchVariant {
  /** API-key authentication and throttling (limits high enough never to refuse). */
  secure?: boolean;
  /** The audit trail, to this JSON-lines file. */
  auditFile?: string;
  /** Another bench host's MCP endpoint, federated as the upstream `up` (its tools as `up_add`, …). */
  upstreamUrl?: string;
  /** The revision the gateway speaks with `up` (default `auto`: the one `up` offers, 2026-07-28). */
  upstreamProtocol?: McpUpstreamOptions['protocolVersion'];
}

/**
 * The benchmark host: `add` plus 100 other tools, 100 prompts, 100 resources; stateless, every
 * list on one page. The variants add security or the audit trail, to measure what they cost.
 */
@Module({})
export class BenchModule {
  static register({ secure = false, auditFile, upstreamUrl, upstreamProtocol }: BenchVariant = {}): DynamicModule {
    return {
      module: BenchModule,
      imports: [
        McpModule.forRoot({
          name: 'nest-mcp-host-bench',
          version: '1.0.0',
          mode: 'stateless',
          pageSize: 200,
          ...(secure && {
            auth: {
              mode: 'apiKey' as const,
              keys: [{ hash: hashApiKey(BENCH_API_KEY), principal: 'bench', scopes: [] }],
            },
          }),
          ...(auditFile && { audit: { file: auditFile } }),
          ...(upstreamUrl && {
            gateway: {
              upstreams: [
                {
                  name: 'up',
                  transport: { type: 'http' as const, url: upstreamUrl },
                  separator: '_',
                  ...(upstreamProtocol && { protocolVersion: upstreamProtocol }),
                },
              ],
            },
          }),
        }),
        ...(secure
          ? [
              ThrottlerModule.forRoot({
                throttlers: [{ name: 'default', ttl: 1_000, limit: 10_000_000 }],
                storage: new FixedWindowThrottlerStorage(),
              }),
            ]
          : []),
      ],
      providers: [
        AddTool,
        NoopTools,
        CatalogFiller,
        ...(secure ? [{ provide: APP_GUARD, useClass: McpThrottlerGuard }] : []),
      ],
    };
  }
}
