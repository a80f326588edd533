import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditRecord } from '#libs/security';
import { AppModule } from '../../src/app.module';
import { setupDeskApiDocs } from '../../src/support/rest/desk-api.document';
import { createTestApplication, type TestPlatform } from './fixture-app';
import { parsePrometheusText, type PromSample } from './prometheus-text';
import { waitForAsync } from './wait-for';

/** The demo keys of config/api-keys.example.json (README). */
export const DESK_KEYS = {
  /** desk-reader: tickets:read, kb:read */
  reader: 'desk-demo-read-only-key',
  /** desk-admin: every scope, role admin */
  admin: 'desk-demo-admin-key',
  /** desk-approver: tickets:read, role approver */
  approver: 'desk-demo-approver-key',
} as const;

/** The support-desk host (src/) running in this process on a loopback port. */
export interface DeskHost {
  app: INestApplication;
  /** The MCP endpoint. */
  url: string;
  /** The server's root (health, metrics, admin, the REST API at /api and its document at /docs-json). */
  base: string;
  /** This host's own audit trail (JSON lines). */
  auditFile: string;
  close(): Promise<void>;
}

/**
 * Starts the support desk as `npm start` does, with `env` over the process environment (read once,
 * at start-up) and an audit trail of its own, on `platform` (Express by default). On Fastify the
 * Swagger UI and document (`/docs`, `/docs-json`) are left out: Swagger serves its UI there with
 * `@fastify/static`, which the desk does not install.
 */
export async function startDeskHost(
  env: Record<string, string> = {},
  platform: TestPlatform = 'express',
): Promise<DeskHost> {
  const saved = { ...process.env };
  const auditFile = join(tmpdir(), `desk-audit-${randomUUID()}.jsonl`);
  // Virtual servers stored apart from the checkout's state/ (which `npm start` uses).
  const virtualServersFile = join(tmpdir(), `desk-virtual-servers-${randomUUID()}.json`);
  Object.assign(process.env, {
    SUPPORT_REPORT_STEP_MS: '30',
    AUDIT_FILE: auditFile,
    VIRTUAL_SERVERS_FILE: virtualServersFile,
    CATALOG_PINS_FILE: join(tmpdir(), `desk-catalog-pins-${randomUUID()}.json`),
    ...env,
  });
  try {
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.register({ transport: 'http' })],
    }).compile();
    const app = createTestApplication(moduleRef, platform);
    if (platform === 'express') setupDeskApiDocs(app);
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url: `${base}/mcp`, base, auditFile, close: () => app.close() };
  } finally {
    process.env = saved;
  }
}

/**
 * Runs the desk's report of closed tickets (`export_ticket_report`) as a 2025-11-25 task: asks for
 * one with `params.task`, then fetches the call's result with `tasks/result` (which waits for it).
 * @returns what `tools/call` answered, and the result
 */
export async function reportAsTask(
  client: Client,
): Promise<{ created: { task: { taskId: string; status: string } }; result: CallToolResult }> {
  const created = (await client.request(
    {
      method: 'tools/call',
      params: { name: 'export_ticket_report', arguments: { status: 'closed' }, task: {} },
    } as never,
    CreateTaskResultSchema,
  )) as { task: { taskId: string; status: string } };
  const result = (await client.request(
    { method: 'tasks/result', params: { taskId: created.task.taskId } } as never,
    CallToolResultSchema,
  )) as CallToolResult;
  return { created, result };
}

/** Every record of an audit trail file so far (none if it does not exist yet). */
export async function readAuditTrail(file: string): Promise<AuditRecord[]> {
  return (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

/**
 * The records of `file` that `select` keeps, once there are at least `count` of them (the trail
 * is written in batches, a few milliseconds after each request).
 */
export async function auditRecords(
  file: string,
  select: (record: AuditRecord) => boolean,
  count = 1,
): Promise<AuditRecord[]> {
  let found: AuditRecord[] = [];
  await waitForAsync(async () => {
    found = (await readAuditTrail(file)).filter(select);
    return found.length >= count;
  }).catch(() => {
    throw new Error(`expected ${count} matching audit record(s), found ${JSON.stringify(found, null, 2)}`);
  });
  return found;
}

/** The samples of a host's `/metrics`. */
export async function scrapeMetrics(base: string): Promise<PromSample[]> {
  const response = await fetch(`${base}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parsePrometheusText(await response.text()).samples;
}

/**
 * The sum of the samples named `name` whose labels include `labels`, whatever their other labels
 * (so a count does not depend on labels a test does not care about).
 */
export function sumOf(samples: PromSample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** The support desk's `@McpTool` tools, by name in sorted order (every transport). */
export const DESK_TOOLS = [
  'add_ticket_comment',
  'close_ticket',
  'create_ticket',
  'export_ticket_report',
  'get_customer',
  'get_ticket',
  'search_customers',
  'search_tickets',
];

/** The desk's resources: the knowledge base's index and the MCP Apps views (src/support/views). */
export const DESK_RESOURCES = [
  'kb://articles',
  'ui://desk/ticket-card',
  'ui://desk/ticket-report',
  'ui://desk/close-approval',
];

/** The tools the desk's REST API (src/support/rest) becomes over HTTP, named by operationId. */
export const DESK_REST_TOOLS = [
  'closeTicket',
  'createTicket',
  'deleteTicket',
  'exportTicketReport',
  'getCustomer',
  'getTicket',
  'listCustomers',
  'listTickets',
  'updateTicket',
];

/** What `tools/list` shows over HTTP to a caller who may use every tool, in sorted order. */
export const DESK_HTTP_TOOLS = [...DESK_TOOLS, ...DESK_REST_TOOLS].sort();
