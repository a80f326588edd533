import type { McpAuditOptions } from 'nest-mcp-host';
import { PostgresAuditSink } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';

/** The support desk's audit trail, from AUDIT_* (see docs/deployment.md). */
export function auditOptions(env: HostEnvironment): McpAuditOptions | false {
  if (env.AUDIT_SINK === 'off') return false;
  const common: McpAuditOptions = { policy: env.AUDIT_POLICY, ...(env.AUDIT_CHAIN && { chain: env.AUDIT_CHAIN }) };
  if (env.AUDIT_SINK === 'postgres')
    // A database of its own when AUDIT_DATABASE_URL says so; else the desk's (DATABASE_URL).
    return { ...common, sink: new PostgresAuditSink({ connectionString: env.AUDIT_DATABASE_URL }) };
  return { ...common, file: env.AUDIT_FILE };
}
