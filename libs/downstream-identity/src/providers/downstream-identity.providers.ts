import type { Provider } from '@nestjs/common';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { AuditTrail } from '#libs/security';
import { DownstreamAudit } from '../audit/downstream-audit';
import { MCP_USER_CONNECTION_STORE, type UserConnectionStore } from '../store/user-connection.store';
import { UserConnections } from '../connections/user-connections';
import { DownstreamIdentity } from '../downstream-identity';
import { ConnectEndpoint } from '../http/connect.endpoint';
import { MCP_DOWNSTREAM_OPTIONS, type DownstreamOptions } from '../options/downstream.options';

/**
 * The caller's identity downstream (its store, `MCP_USER_CONNECTION_STORE`, is bound by `McpModule`:
 * the one `downstream.connections.store` names, else the shared state's). `UserConnections` (and its store, its pages) exist only when
 * an upstream or API uses `'user'`; `DownstreamIdentity` always (it answers `'service'` with nothing).
 */
export const DOWNSTREAM_IDENTITY_PROVIDERS: Provider[] = [
  {
    provide: DownstreamAudit,
    useFactory: (trail?: AuditTrail) => new DownstreamAudit(trail),
    inject: [{ token: AuditTrail, optional: true }],
  },
  {
    provide: UserConnections,
    useFactory: (options: DownstreamOptions, store: UserConnectionStore, audit: DownstreamAudit) =>
      options.connections ? new UserConnections(options.connections, store, audit) : undefined,
    inject: [MCP_DOWNSTREAM_OPTIONS, MCP_USER_CONNECTION_STORE, DownstreamAudit],
  },
  {
    provide: DownstreamIdentity,
    useFactory: (options: DownstreamOptions, connections?: UserConnections, facade?: McpAuthorizationServer) =>
      new DownstreamIdentity(options, facade, connections),
    inject: [
      MCP_DOWNSTREAM_OPTIONS,
      { token: UserConnections, optional: true },
      { token: McpAuthorizationServer, optional: true },
    ],
  },
  ConnectEndpoint,
];
