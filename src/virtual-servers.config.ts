import { FileVirtualServersStore, type McpVirtualServersOptions } from 'nest-mcp-host';
import { PostgresVirtualServersStore } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';

/**
 * The desk's virtual servers (VIRTUAL_SERVERS, docs/deployment.md): upstreams an administrator
 * adds at run time on the dashboard or the admin API, stored in PostgreSQL when the desk has
 * DATABASE_URL (every replica reads the same), in a file otherwise.
 */
export function virtualServersOptions(env: HostEnvironment): McpVirtualServersOptions | false {
  if (env.VIRTUAL_SERVERS === 'off') return false;
  return {
    store: env.DATABASE_URL
      ? new PostgresVirtualServersStore({ connectionString: env.DATABASE_URL })
      : new FileVirtualServersStore(env.VIRTUAL_SERVERS_FILE),
    allowHosts: env.VIRTUAL_SERVERS_ALLOW_HOSTS,
  };
}
