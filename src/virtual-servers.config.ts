import { FileVirtualServersStore, type McpVirtualServersOptions } from 'nest-mcp-host';
import { PostgresVirtualServersStore } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';

/**
 * The desk's virtual servers (VIRTUAL_SERVERS, docs/deployment.md): upstreams an administrator
 * adds at run time on the dashboard or the admin API, and composed virtual servers (endpoints of
 * their own), stored in PostgreSQL when the desk has DATABASE_URL (every replica reads the same),
 * in a file otherwise. A first start stores one composed server: the desk read only, at
 * /mcp/readonly (docs/virtual-servers.md).
 */
export function virtualServersOptions(env: HostEnvironment): McpVirtualServersOptions | false {
  if (env.VIRTUAL_SERVERS === 'off') return false;
  return {
    store: env.DATABASE_URL
      ? new PostgresVirtualServersStore({ connectionString: env.DATABASE_URL })
      : new FileVirtualServersStore(env.VIRTUAL_SERVERS_FILE),
    allowHosts: env.VIRTUAL_SERVERS_ALLOW_HOSTS,
    seed: { servers: [READ_ONLY_DESK] },
  };
}

/** The desk's customers and tickets to read, nothing that changes them, for callers holding tickets:read. */
const READ_ONLY_DESK = {
  name: 'desk-readonly',
  path: '/mcp/readonly',
  title: 'Support desk (read only)',
  description: 'Look up customers and tickets. Nothing here changes a ticket.',
  credentials: { scopes: ['tickets:read'] },
  select: [{ from: 'local' as const, entries: ['search_*', 'get_*'] }],
  limits: { callsPerMinute: 600 },
};
