export {
  AUTHORIZATION_SERVER_OPTION_KEYS,
  MCP_AUTHORIZATION_SERVER_OPTIONS,
  InjectAuthorizationServerOptions,
  resolveAuthorizationServerOptions,
  type AuthorizationServerOptions,
  type McpAuthorizationServerOptions,
  type McpCompanyIdp,
  type McpPreRegisteredClient,
  type McpTrustedIdp,
  isLoopbackUrl,
} from './options/authorization-server.options';
export type { McpClientMetadataDocuments, McpDynamicRegistration } from './options/client-options';
export { CompanyIdpLogin, type IdpSignIn } from './idp/company-idp-login';
export {
  MCP_AUTHORIZATION_SERVER_STORE,
  InjectAuthorizationServerStore,
  type AuthorizationServerStore,
} from './state/authorization-server.store';
export { InMemoryAuthorizationServerStore } from './state/in-memory-authorization-server.store';
export { McpAuthorizationServer, ENTERPRISE_MANAGED_AUTHORIZATION, JWT_BEARER } from './mcp-authorization-server';
export type { McpOAuthGrant } from './grants/token-service';
export { SigningKeys } from './keys/signing-keys';
export { AUTHORIZATION_SERVER_PROVIDERS } from './providers/authorization-server.providers';
