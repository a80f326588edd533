import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import {
  McpModule,
  FixedWindowThrottlerStorage,
  hashApiKey,
  McpThrottlerGuard,
  type McpPolicyDefinition,
  type AuditSink,
  type McpUpstreamOptions,
} from 'nest-mcp-host';
import { RedisClusterBackplane } from 'nest-mcp-host/redis';
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
  /** Sinks the trail forwards every record to as well (a SIEM: syslog, a webhook). */
  auditForward?: AuditSink[];
  /** Another bench host's MCP endpoint, federated as the upstream `up` (its tools as `up_add`, …). */
  upstreamUrl?: string;
  /** The revision the gateway speaks with `up` (default `auto`: the one `up` offers, 2026-07-28). */
  upstreamProtocol?: McpUpstreamOptions['protocolVersion'];
  /** Keep 2025 sessions (stateful mode) instead of serving every request on its own. */
  stateful?: boolean;
  /** With `stateful`: how many sessions it keeps, in all and per principal (the memory benchmark opens 10,000). */
  maxSessions?: number;
  /** Share the sessions with other replicas through this Redis (the `cluster` option). */
  redisUrl?: string;
  /** This replica's name (with `redisUrl`). */
  replica?: string;
  /** Governance on, with this many policies (each governing every tool and reading its arguments). */
  policies?: number;
  /** The policies read no arguments (who calls which entry): decided once per caller and entry. */
  policiesOnCaller?: boolean;
  /** Governance's guardrails on, every built-in detector on arguments and results. */
  guardrails?: boolean;
}

/**
 * `count` policies that each govern every call and read its arguments (the costly kind: the
 * arguments are converted for CEL and every condition evaluated), all holding for `add`.
 */
function benchPolicies(count: number, onCaller = false): McpPolicyDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `bench-${i}`,
    condition: onCaller
      ? `principal.id != 'blocked-${i}' && entry.origin == 'local'`
      : i % 2 === 0
        ? `!has(args.a) || args.a < ${1_000_000 + i}`
        : "principal.id != 'blocked' || has(args.b)",
  }));
}

/**
 * The benchmark host: `add` plus 100 other tools, 100 prompts, 100 resources; stateless, every
 * list on one page. The variants add security, the audit trail, an upstream, or 2025 sessions
 * (in memory, or shared through Redis), to measure what they cost.
 */
@Module({})
export class BenchModule {
  static register({
    secure = false,
    auditFile,
    auditForward = [],
    upstreamUrl,
    upstreamProtocol,
    stateful = false,
    redisUrl,
    replica,
    policies,
    policiesOnCaller = false,
    guardrails = false,
    maxSessions,
  }: BenchVariant = {}): DynamicModule {
    return {
      module: BenchModule,
      imports: [
        McpModule.forRoot({
          name: 'nest-mcp-host-bench',
          version: '1.0.0',
          mode: stateful ? 'stateful' : 'stateless',
          ...(maxSessions && { maxSessions, maxSessionsPerPrincipal: maxSessions }),
          pageSize: 200,
          ...(replica && { replica }),
          ...(redisUrl && { cluster: { backplane: new RedisClusterBackplane(redisUrl) } }),
          ...(secure && {
            auth: {
              mode: 'apiKey' as const,
              keys: [{ hash: hashApiKey(BENCH_API_KEY), principal: 'bench', scopes: [] }],
            },
          }),
          ...(auditFile && {
            audit: { file: auditFile, ...(auditForward.length > 0 && { forward: auditForward }) },
          }),
          ...((policies !== undefined || guardrails) && {
            governance: {
              policies: benchPolicies(policies ?? 0, policiesOnCaller),
              ...(guardrails && {
                guardrails: {
                  rules: [
                    { detectors: ['api-key', 'private-key'], action: 'block' as const },
                    { detectors: ['email', 'phone'], on: 'result' as const, action: 'redact' as const },
                    { detectors: ['card', 'iban'], on: 'arguments' as const, action: 'flag' as const },
                  ],
                },
              }),
            },
          }),
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
