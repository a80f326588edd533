// `nest-mcp-host/postgres`: the PostgreSQL audit sink, virtual servers store, catalog pin store and authorization server store, apart from the root entry so that only the
// applications that use it load `pg` (an optional peer dependency: `npm install pg`).
export { PostgresAuditSink, type PostgresAuditSinkOptions } from './security/src/audit/postgres-audit.sink';
// The accounts people connect to APIs themselves (credential: { mode: 'user' }), sealed, shared by the replicas.
export {
  PostgresUserConnectionStore,
  type PostgresUserConnectionStoreOptions,
} from './downstream-identity/src/store/postgres-user-connection.store';
export {
  PostgresVirtualServersStore,
  type PostgresVirtualServersStoreOptions,
} from './virtual-servers/src/store/postgres-virtual-servers.store';
// The pins of pinned catalogs (governance.pinning.store), shared by the replicas.
export {
  PostgresCatalogPinStore,
  type PostgresCatalogPinStoreOptions,
} from './governance/src/pins/postgres-catalog-pin.store';
// The authorization server facade's state (authorizationServer.store): registered clients and sign-ins outlive a restart, shared by the replicas.
export {
  PostgresAuthorizationServerStore,
  type PostgresAuthorizationServerStoreOptions,
} from './authorization-server/src/state/postgres-authorization-server.store';
