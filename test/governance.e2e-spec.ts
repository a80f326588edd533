import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey, type AuditRecord } from '#libs/security';
import { startDeskProcess, type DeskProcess } from './support/desk-process';

jest.setTimeout(30_000);

const KEYS = {
  agent: 'gov-agent-0123456789abcdef',
  lead: 'gov-lead-0123456789abcdef',
  admin: 'gov-admin-0123456789abcdef',
};
const SCOPES = ['tickets:read', 'tickets:write', 'kb:read', 'reports'];
const TICKET = { customerId: 'C-1002', subject: 'Printer on fire', description: 'The office printer is on fire.' };

/**
 * The desk's governance (src/governance.config.ts) on a real desk process, through the SDK's
 * client: a policy on the arguments, the guardrails on arguments and results, each decision in the
 * audit trail, and the policies replaced through the admin API (validated first, audited), a
 * replacement that hides a tool from lists and calls alike.
 */
describe('governance on the desk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'governance-'));
  const auditFile = join(dir, 'audit.jsonl');
  let desk: DeskProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    const keysFile = join(dir, 'keys.json');
    writeFileSync(
      keysFile,
      JSON.stringify({
        keys: [
          { principal: 'agent', scopes: SCOPES, roles: ['agent'], hash: hashApiKey(KEYS.agent) },
          { principal: 'lead', scopes: SCOPES, roles: ['lead'], hash: hashApiKey(KEYS.lead) },
          { principal: 'admin', scopes: SCOPES, roles: ['admin'], hash: hashApiKey(KEYS.admin) },
        ],
      }),
    );
    desk = await startDeskProcess({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: keysFile,
      AUDIT_FILE: auditFile,
      THROTTLE_LIMIT: '1000',
      LOG_LEVEL: 'warn',
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await desk?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function clientAs(who: keyof typeof KEYS): Promise<Client> {
    const client = new Client({ name: `governance-${who}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${desk.port}/mcp`), {
      requestInit: { headers: { 'x-api-key': KEYS[who] } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** The newest record of the trail that `matches` (written off the hot path: waited for). */
  async function recordOf(matches: (record: AuditRecord) => boolean): Promise<AuditRecord> {
    for (const deadline = Date.now() + 5_000; ;) {
      const records = readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditRecord);
      const found = records.filter(matches).at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such record; last: ${JSON.stringify(records.slice(-2))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${desk.port}/admin/api/${path}`, {
      method,
      headers: { 'x-api-key': KEYS.admin, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it('refuses an urgent ticket to an agent, names the policy, and audits the decision', async () => {
    const agent = await clientAs('agent');
    await expect(
      agent.callTool({ name: 'create_ticket', arguments: { ...TICKET, priority: 'urgent' } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'Not allowed by policy "urgent-needs-lead": only a team lead may open an urgent ticket',
      ),
    });
    const record = await recordOf((r) => r.principal === 'agent' && r.target === 'create_ticket');
    expect(record).toMatchObject({
      outcome: 'denied',
      governance: { refused: [{ policy: 'urgent-needs-lead', reason: expect.stringContaining('team lead') }] },
    });
  });

  it('lets a lead open it, and records the policy that held', async () => {
    const lead = await clientAs('lead');
    const result = (await lead.callTool({
      name: 'create_ticket',
      arguments: { ...TICKET, priority: 'urgent' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const record = await recordOf((r) => r.principal === 'lead' && r.target === 'create_ticket');
    expect(record).toMatchObject({ outcome: 'ok', governance: { allowed: ['urgent-needs-lead'] } });
  });

  it("redacts customers' e-mail addresses in results for callers without clearance, not for an admin", async () => {
    const agent = await clientAs('agent');
    const seen = (await agent.callTool({
      name: 'get_customer',
      arguments: { customerId: 'C-1002' },
    })) as CallToolResult;
    expect(seen.structuredContent).toMatchObject({ id: 'C-1002', email: 'redacted@redacted.invalid' });
    expect(JSON.stringify(seen.content)).not.toContain('contoso.example');
    const record = await recordOf((r) => r.principal === 'agent' && r.target === 'get_customer');
    expect(record.governance?.findings).toContainEqual({
      detector: 'email',
      in: 'result',
      path: '$.structuredContent.email',
      action: 'redact',
    });
    expect(JSON.stringify(record)).not.toContain('contoso.example');
    const cleared = (await (
      await clientAs('admin')
    ).callTool({
      name: 'get_customer',
      arguments: { customerId: 'C-1002' },
    })) as CallToolResult;
    expect(cleared.structuredContent).toMatchObject({ email: 'bruno@contoso.example' });
  });

  it('refuses a secret in the arguments without ever recording it', async () => {
    const agent = await clientAs('agent');
    const secret = '-----BEGIN PRIVATE KEY-----';
    await expect(
      agent.callTool({ name: 'create_ticket', arguments: { ...TICKET, priority: 'low', description: secret } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Refused by guardrail: the arguments contain private-key at $.description'),
    });
    const record = await recordOf(
      (r) => r.principal === 'agent' && r.governance?.findings?.[0]?.detector === 'private-key',
    );
    expect(record.outcome).toBe('denied');
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(record.arguments).toMatchObject({ description: '[REDACTED:private-key]' });
  });

  it('counts what the guardrails found and the policies refused in the metrics, never a value', async () => {
    const response = await fetch(`http://127.0.0.1:${desk.port}/metrics`, { headers: { 'x-api-key': KEYS.admin } });
    expect(response.status).toBe(200);
    const text = await response.text();
    // `name{labels…,replica="…"} value`: the sample of `name` whose labels include `labels`.
    const sample = (name: string, labels: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${name}{`) && line.includes(labels))
          ?.split(' ')
          .at(-1),
      );
    expect({
      redacted: sample('mcp_guardrail_findings_total', 'detector="email",in="result",action="redact"'),
      blocked: sample('mcp_guardrail_findings_total', 'detector="private-key",in="arguments",action="block"'),
      refused: sample('mcp_policy_refusals_total', 'policy="urgent-needs-lead",dry_run="false"'),
    }).toEqual({ redacted: expect.any(Number), blocked: 1, refused: 1 });
    expect(sample('mcp_guardrail_findings_total', 'detector="email",in="result",action="redact"')).toBeGreaterThan(0);
    expect(text).not.toContain('contoso.example');
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('replaces the policies through the admin API: validated first, applied, audited; a rule on the entry hides it from lists and calls', async () => {
    const invalid = await admin('POST', 'policies', { policies: [{ id: 'x', condition: 'args.a <' }, { id: 'x' }] });
    expect(invalid.status).toBe(400);
    const problems = ((await invalid.json()) as { problems: { where: string; problem: string }[] }).problems;
    expect(problems.map((p) => `${p.where}: ${p.problem}`)).toEqual([
      expect.stringMatching(/^governance\.policies\[0\]: the condition is not valid CEL/),
      'governance.policies[1]: "condition" must be a CEL expression',
    ]);
    const before = (await (await admin('GET', 'policies')).json()) as { version: number; policies: { id: string }[] };
    expect(before.version).toBe(0);
    expect(before.policies.map((p) => p.id)).toContain('urgent-needs-lead');

    const replaced = await admin('POST', 'policies', {
      policies: [
        {
          id: 'reports-for-leads',
          appliesTo: { names: ['export_ticket_report'] },
          condition: "'lead' in principal.roles",
        },
      ],
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({
      version: 1,
      policies: [{ id: 'reports-for-leads', perCall: false }],
    });
    const audit = await recordOf((r) => r.method === 'admin/policies.replace' && r.outcome === 'ok');
    expect(audit).toMatchObject({ principal: 'admin', arguments: { version: 1, policies: ['reports-for-leads'] } });
    // The refused replacement is recorded too: who tried, and how many problems it had.
    expect(await recordOf((r) => r.method === 'admin/policies.replace' && r.outcome === 'invalid')).toMatchObject({
      principal: 'admin',
      target: 'governance.policies',
      arguments: { problems: 2 },
      errorCode: 400,
    });

    const agent = await clientAs('agent');
    const agentTools = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(agentTools).not.toContain('export_ticket_report');
    expect(agentTools).toContain('create_ticket');
    await expect(agent.callTool({ name: 'export_ticket_report', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: export_ticket_report'),
    });
    const lead = await clientAs('lead');
    expect((await lead.listTools()).tools.map((tool) => tool.name)).toContain('export_ticket_report');
    // The urgent-ticket policy was replaced: an agent may open one now.
    const urgent = (await agent.callTool({
      name: 'create_ticket',
      arguments: { ...TICKET, priority: 'urgent' },
    })) as CallToolResult;
    expect(urgent.isError).toBeFalsy();
  });
});
