import { Injectable, Optional } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import type { McpPrincipal, McpTransportKind } from '#libs/core';
import { AuditTrail, type AuditRecord, type AuditTrailHealth } from '#libs/security';
import { DependencyHealth, type DependencyStatus } from '../health/dependency-health';
import { HostState, type HostPhase } from '#libs/protocol';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import type { McpSession } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import type { McpEntryKind } from '#libs/protocol';
import { AdminCatalogReader, type AdminCatalog } from './admin-catalog.reader';
import { McpCallStats, type McpEntryStats, type McpStatsSnapshot } from '../stats/mcp-call-stats';

/** Most audit records one request returns. */
export const MAX_AUDIT_LIMIT = 500;
/** Most sessions one request lists (the newest seen first); `count` says how many there are. */
const MAX_SESSIONS_LISTED = 200;

export interface AdminHealth {
  /** `down` when readiness would answer 503; `degraded` when an optional dependency is not up. */
  status: 'ok' | 'degraded' | 'down';
  checkedAt: string;
  /** Who is asking. */
  principal: string;
  host: {
    /** The replica that answered (the `replica` option): behind a load balancer, each has its own numbers. */
    replica: string;
    name: string;
    version: string;
    title: string | null;
    phase: HostPhase;
    mode: 'stateful' | 'stateless';
    auth: 'none' | 'apiKey' | 'oauth';
    startedAt: string;
    uptimeSec: number;
    sessions: number;
    /** Sessions live on every replica (the `cluster` option), or `null` for a single replica. */
    clusterSessions: number | null;
    inFlight: number;
    catalog: { tools: number; prompts: number; resources: number; resourceTemplates: number };
    process: { pid: number; node: string; rssBytes: number; heapUsedBytes: number };
  };
  dependencies: DependencyStatus[];
}

export interface AdminAuditPage {
  /** `false`: the host keeps no audit trail (the `audit` option). */
  enabled: boolean;
  health: AuditTrailHealth | null;
  filter: { principal?: string; target?: string; method?: string; outcome?: string; limit: number };
  /** Newest first. */
  records: AuditRecord[];
}

export interface AdminSession {
  id: string;
  transport: McpTransportKind;
  principal: string | null;
  client: { name: string; version: string } | null;
  protocolVersion: string;
  initialized: boolean;
  createdAt: string;
  lastSeenAt: string;
  inFlight: number;
  subscriptions: number;
  /** A notification stream (HTTP GET, or stdout) is open. */
  stream: boolean;
}

export interface AdminSessions {
  mode: 'stateful' | 'stateless';
  count: number;
  max: number;
  idleTtlMs: number;
  /** The most recently seen first, at most 200. */
  sessions: AdminSession[];
}

export type AdminStats = McpStatsSnapshot & { windowMinutes: number };

/** What the admin API answers, endpoint by endpoint (access is checked before). */
@Injectable()
export class AdminApi {
  private readonly startedAt = Date.now();

  constructor(
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    @InjectOperationsOptions() private readonly operations: OperationsOptions,
    private readonly state: HostState,
    private readonly sessions: SessionStore,
    private readonly dependencies: DependencyHealth,
    private readonly catalogReader: AdminCatalogReader,
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly stats: McpCallStats,
    @Optional() private readonly audit?: AuditTrail,
  ) {}

  /** The host and every dependency, from the checks `/health/ready` runs. */
  async health(principal: McpPrincipal): Promise<AdminHealth> {
    const dependencies = await this.dependencies.check();
    const down = !this.state.accepting || dependencies.some((dependency) => dependency.status === 'down');
    const memory = process.memoryUsage();
    const now = Date.now();
    // Read from the shared store: unknown (null) while it cannot be reached, as readiness says.
    const clusterSessions = await this.sessions.countOnEveryReplica();
    return {
      status: down ? 'down' : dependencies.some((dependency) => dependency.status !== 'up') ? 'degraded' : 'ok',
      checkedAt: new Date(now).toISOString(),
      principal: principal.id,
      host: {
        replica: this.operations.replica,
        name: this.protocol.server.name,
        version: this.protocol.server.version,
        title: this.protocol.server.title ?? null,
        phase: this.state.phase,
        mode: this.protocol.mode,
        auth: this.security.auth.mode,
        startedAt: new Date(this.startedAt).toISOString(),
        uptimeSec: Math.floor((now - this.startedAt) / 1000),
        sessions: this.sessions.liveCount,
        clusterSessions,
        inFlight: this.state.inFlight,
        catalog: {
          tools: this.tools.size,
          prompts: this.prompts.size,
          resources: this.resources.resources.size,
          resourceTemplates: this.resources.templates.size,
        },
        process: { pid: process.pid, node: process.version, rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      },
      dependencies,
    };
  }

  catalog(): AdminCatalog {
    return this.catalogReader.read();
  }

  /** Per-entry statistics; every catalog entry has a row, called or not. */
  statistics(): AdminStats {
    const snapshot = this.stats.snapshot();
    const seen = new Set(snapshot.entries.map((entry) => `${entry.kind}:${entry.name}`));
    const idle = (kind: McpEntryKind, name: string): McpEntryStats[] =>
      seen.has(`${kind}:${name}`)
        ? []
        : [
            {
              kind,
              name,
              calls: 0,
              errors: 0,
              errorRate: 0,
              outcomes: {},
              latencyMs: null,
              total: { calls: 0, errors: 0 },
              lastCallAt: null,
            },
          ];
    const order: Record<McpEntryKind, number> = { tool: 0, prompt: 1, resource: 2 };
    const entries = [
      ...snapshot.entries,
      ...this.tools.all().flatMap((tool) => idle('tool', tool.name)),
      ...this.prompts.all().flatMap((prompt) => idle('prompt', prompt.name)),
      ...this.resources.resources.all().flatMap((resource) => idle('resource', resource.uri)),
      ...this.resources.templates.all().flatMap((template) => idle('resource', template.template.template)),
    ].sort((a, b) => order[a.kind] - order[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { ...snapshot, windowMinutes: snapshot.windowMs / 60_000, entries };
  }

  /** The newest audit records matching the filter (validated by the caller). */
  auditRecords(filter: {
    principal?: string;
    target?: string;
    method?: string;
    outcome?: string;
    limit: number;
  }): AdminAuditPage {
    if (!this.audit) return { enabled: false, health: null, filter, records: [] };
    return { enabled: true, health: this.audit.health(), filter, records: this.audit.recent(filter) };
  }

  /** Live sessions, the most recently seen first (stdio's, if connected, included). */
  sessionList(): AdminSessions {
    const all = [...this.sessions.live()];
    const listed = all.sort((a, b) => b.lastSeen - a.lastSeen).slice(0, MAX_SESSIONS_LISTED);
    return {
      mode: this.protocol.mode,
      count: all.length,
      max: this.protocol.sessions.max,
      idleTtlMs: this.protocol.sessions.idleTtlMs,
      sessions: listed.map((session) =>
        this.sessions.isLocal(session)
          ? describeSession(session, 'stdio', this.security.stdioPrincipal.id)
          : describeSession(session, 'http', undefined),
      ),
    };
  }
}

function describeSession(
  session: McpSession,
  transport: McpTransportKind,
  principal: string | undefined,
): AdminSession {
  return {
    id: session.id ?? 'stdio',
    transport,
    principal: session.principalId ?? principal ?? null,
    client: session.clientInfo ? { name: session.clientInfo.name, version: session.clientInfo.version } : null,
    protocolVersion: session.protocolVersion,
    initialized: session.initialized,
    createdAt: new Date(session.createdAt).toISOString(),
    lastSeenAt: new Date(session.lastSeen).toISOString(),
    inFlight: session.inFlight.size,
    subscriptions: session.subscriptions.size,
    stream: session.sink !== undefined,
  };
}
