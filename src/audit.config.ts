import { readFileSync } from 'node:fs';
import {
  OtlpLogsAuditSink,
  SyslogAuditSink,
  WebhookAuditSink,
  type AuditSink,
  type McpAuditOptions,
} from 'nest-mcp-host';
import { PostgresAuditSink } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';

/** The forwarding sinks the environment turns on (their files read now). */
function forwardingSinks(env: HostEnvironment): AuditSink[] {
  const read = (path: string | undefined) => (path === undefined ? undefined : readFileSync(path));
  const sinks: AuditSink[] = [];
  if (env.AUDIT_SYSLOG_HOST !== undefined) {
    const ca = read(env.AUDIT_SYSLOG_CA_FILE);
    const cert = read(env.AUDIT_SYSLOG_CERT_FILE);
    const key = read(env.AUDIT_SYSLOG_KEY_FILE);
    const tls = env.AUDIT_SYSLOG_TLS !== 'off';
    sinks.push(
      new SyslogAuditSink({
        host: env.AUDIT_SYSLOG_HOST,
        port: env.AUDIT_SYSLOG_PORT ?? 6514,
        tls: tls && (ca ?? cert) !== undefined ? { ...(ca && { ca }), ...(cert && { cert, key }) } : tls,
      }),
    );
  }
  if (env.AUDIT_WEBHOOK_URL !== undefined) {
    const ca = read(env.AUDIT_WEBHOOK_CA_FILE);
    sinks.push(
      new WebhookAuditSink({
        url: env.AUDIT_WEBHOOK_URL,
        secret: env.AUDIT_WEBHOOK_SECRET!,
        ...(ca && { tls: { ca } }),
      }),
    );
  }
  if (env.AUDIT_OTLP_LOGS_URL !== undefined) {
    const ca = read(env.AUDIT_OTLP_LOGS_CA_FILE);
    sinks.push(
      new OtlpLogsAuditSink({
        url: env.AUDIT_OTLP_LOGS_URL,
        serviceName: 'support-desk',
        headers: env.AUDIT_OTLP_LOGS_HEADERS,
        ...(ca && { tls: { ca } }),
      }),
    );
  }
  return sinks;
}

/** The support desk's audit trail, from AUDIT_* (see docs/deployment.md). */
export function auditOptions(env: HostEnvironment): McpAuditOptions | false {
  if (env.AUDIT_SINK === 'off') return false;
  const forward = forwardingSinks(env);
  const common: McpAuditOptions = {
    policy: env.AUDIT_POLICY,
    ...(env.AUDIT_CHAIN && { chain: env.AUDIT_CHAIN }),
    ...(forward.length > 0 && { forward }),
  };
  if (env.AUDIT_SINK === 'postgres')
    // A database of its own when AUDIT_DATABASE_URL says so; else the desk's (DATABASE_URL).
    return { ...common, sink: new PostgresAuditSink({ connectionString: env.AUDIT_DATABASE_URL }) };
  return { ...common, file: env.AUDIT_FILE };
}
