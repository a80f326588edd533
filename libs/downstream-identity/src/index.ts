export {
  resolveDownstreamCredential,
  SERVICE_CREDENTIAL,
  type DownstreamCredential,
  type McpDownstreamCredential,
  type McpTokenExchangeCredential,
  type McpUserCredential,
  type McpConnectAuthorization,
} from './options/downstream-credential.options';
export {
  DOWNSTREAM_OPTION_KEYS,
  MCP_DOWNSTREAM_OPTIONS,
  InjectDownstreamOptions,
  resolveDownstreamOptions,
  type DownstreamOptions,
  type DownstreamCredentialUses,
  type McpDownstreamOptions,
} from './options/downstream.options';
export { targetId, type DownstreamTarget } from './options/downstream-target';
export { DownstreamIdentity } from './downstream-identity';
export { ExchangedTokenCache } from './exchange/exchanged-token.cache';
export { IdpTokenExchange, type ExchangedToken } from './exchange/idp-token-exchange';
export {
  MCP_USER_CONNECTION_STORE,
  InjectUserConnectionStore,
  type UserConnectionStore,
} from './store/user-connection.store';
export { InMemoryUserConnectionStore } from './store/in-memory-user-connection.store';
export { UserConnections, type McpUserConnection } from './connections/user-connections';
export { SealedBox, SealBroken } from '#libs/core';
export { DOWNSTREAM_IDENTITY_PROVIDERS } from './providers/downstream-identity.providers';
