import { join } from 'node:path';
import { hostname } from 'node:os';
import { resolveAuditOptions } from './audit-options';
import { JsonlAuditSink } from './jsonl-audit.sink';

function resolve(value: unknown) {
  const problems: string[] = [];
  const resolved = resolveAuditOptions(value, (option, problem, fix) => problems.push(`${option} ${problem} (${fix})`));
  return { resolved, problems };
}

describe('resolveAuditOptions', () => {
  it('is off unless asked for; true takes every default (JSON lines, fail-closed, this host as chain)', () => {
    expect(resolve(undefined).resolved).toBeUndefined();
    expect(resolve(false).resolved).toBeUndefined();
    const { resolved, problems } = resolve(true);
    expect(problems).toEqual([]);
    expect(resolved!.sink).toBeInstanceOf(JsonlAuditSink);
    expect((resolved!.sink as JsonlAuditSink).file).toBe('audit/audit.jsonl');
    expect(resolved!.settings).toEqual({
      policy: 'fail-closed',
      bufferSize: 10_000,
      flushIntervalMs: 10,
      batchSize: 500,
      chain: hostname(),
      recentSize: 1_000,
      digestKey: undefined,
      spoolFile: undefined,
      refusalWindowMs: 60_000,
    });
  });

  it('spools the buffered policy next to the trail, per chain, and validates the spool and the refusal window', () => {
    expect(resolve({ policy: 'buffered', chain: 'desk/1' }).resolved!.settings).toMatchObject({
      spoolFile: 'audit/spool/desk_1.jsonl',
      refusalWindowMs: 60_000,
    });
    expect(resolve({ policy: 'buffered', spoolFile: '/var/spool/mcp.jsonl' }).resolved!.settings.spoolFile).toBe(
      '/var/spool/mcp.jsonl',
    );
    // Beside a trail file given elsewhere (on its volume, not in the working directory).
    expect(
      resolve({ policy: 'buffered', chain: 'desk-1', file: '/var/log/mcp/audit.jsonl' }).resolved!.settings.spoolFile,
    ).toBe('/var/log/mcp/spool/desk-1.jsonl');
    expect(
      resolve({ policy: 'buffered', chain: 'desk-1', sink: { name: 'x', append: async () => undefined } }).resolved!
        .settings.spoolFile,
    ).toBe('audit/spool/desk-1.jsonl');
    expect(
      resolve({ policy: 'buffered', chain: 'desk-1', file: 'trail.jsonl', spoolFile: './trail.jsonl' }).problems,
    ).toEqual([
      'audit.spoolFile is the trail file itself (give the spool a file of its own, or leave spoolFile out (spool/CHAIN.jsonl))',
    ]);
    expect(resolve({ spoolFile: 'x.jsonl', refusalWindowMs: 5 }).problems).toEqual([
      "audit.spoolFile only applies to the 'buffered' policy (set policy: 'buffered', or remove spoolFile)",
      'audit.refusalWindowMs must be an integer ≥ 100, got 5 (set refusalWindowMs: 60000 (the default) or another integer ≥ 100)',
    ]);
  });

  it('names every wrong option with its fix', () => {
    const { problems } = resolve({
      policy: 'maybe',
      bufferSize: 0,
      flushMs: 5,
      sink: { write() {} },
      file: 'x.jsonl',
      chain: '',
    });
    expect(problems).toEqual([
      'audit.flushMs is not a known option (remove it; known options are: sink, file, rotateBytes, syncIntervalMs, policy, bufferSize, flushIntervalMs, batchSize, chain, recentSize, digestKey, spoolFile, refusalWindowMs, forward, forwardMaxRetryMs)',
      "audit.policy \"maybe\" is not a policy (use 'fail-closed' or 'buffered')",
      'audit.sink must implement AuditSink (an object with append(records)) (pass e.g. new PostgresAuditSink({ connectionString }) or leave sink out for the JSON-lines file)',
      'audit.file only applies to the default sink, but a sink is given (remove file, or remove sink)',
      'audit.chain must be a non-empty string (give a string or leave chain out)',
      'audit.bufferSize must be an integer ≥ 1, got 0 (set bufferSize: 10000 (the default) or another integer ≥ 1)',
    ]);
    expect(resolve('yes').problems).toEqual([
      "audit must be an object or false (e.g. audit: { file: 'audit/audit.jsonl' })",
    ]);
  });

  it('gives each forwarding sink a spool of its own beside the trail, and refuses two of one name', () => {
    const sink = (name: string) => ({ name, append: async () => {} });
    const ok = resolveAuditOptions(
      { file: 'logs/audit.jsonl', chain: 'desk 1', forward: [sink('syslog'), sink('webhook')] },
      () => {},
    )!;
    expect(ok.forward.map(({ sink: s, settings }) => [s.name, settings.spoolFile, settings.maxRetryDelayMs])).toEqual([
      ['syslog', join('logs', 'spool', 'desk_1.syslog.forward.jsonl'), 30_000],
      ['webhook', join('logs', 'spool', 'desk_1.webhook.forward.jsonl'), 30_000],
    ]);
    const own = sink('own');
    expect(resolve({ sink: own, forward: [sink('a'), sink('a'), own, 'siem'], forwardMaxRetryMs: 5 }).problems).toEqual(
      [
        'audit.forwardMaxRetryMs must be an integer ≥ 100, got 5 (set forwardMaxRetryMs: 30000 (the default) or another integer ≥ 100)',
        'audit.forward[1] another sink is named "a" (give each a name of its own (option name: \'siem-eu\'))',
        "audit.forward[2] is the trail's own sink (forward to another sink, or remove it from forward)",
        'audit.forward[3] must implement AuditSink (pass e.g. new WebhookAuditSink({ url, secret }))',
      ],
    );
  });
});
