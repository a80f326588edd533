import type { Provider } from '@nestjs/common';
import { MCP_LOCAL_TOKEN_KEYS, MCP_SECURITY_OPTIONS, type SecurityOptions } from '#libs/security';
import { AuthorizationServerEndpoint } from '../http/authorization-server.endpoint';
import { SigningKeys } from '../keys/signing-keys';
import { McpAuthorizationServer } from '../mcp-authorization-server';
import {
  MCP_AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../options/authorization-server.options';
import { MCP_AUTHORIZATION_SERVER_STORE, type AuthorizationServerStore } from '../state/authorization-server.store';

/**
 * The authorization server's providers. Each is `undefined` when the `authorizationServer`
 * option is off (the options may come from `forRootAsync`, so this is known only once they are
 * resolved): nothing is loaded, no key made, no route added. Its store is bound by `McpModule`
 * (`MCP_AUTHORIZATION_SERVER_STORE`: in process, or the cluster's).
 */
export const AUTHORIZATION_SERVER_PROVIDERS: Provider[] = [
  {
    provide: SigningKeys,
    // The ring is loaded (or its first key made) at application bootstrap, once the store is
    // reachable: with the cluster option, its backplane connects at module init.
    useFactory: (options: AuthorizationServerOptions | undefined, store: AuthorizationServerStore) =>
      options ? new SigningKeys(store, options.accessTokenTtlSec) : undefined,
    inject: [MCP_AUTHORIZATION_SERVER_OPTIONS, MCP_AUTHORIZATION_SERVER_STORE],
  },
  // The resource server checks the facade's tokens with its keys, in process.
  { provide: MCP_LOCAL_TOKEN_KEYS, useFactory: (keys?: SigningKeys) => keys, inject: [SigningKeys] },
  {
    provide: McpAuthorizationServer,
    useFactory: (
      options: AuthorizationServerOptions | undefined,
      store: AuthorizationServerStore,
      security: SecurityOptions,
      keys: SigningKeys,
    ) => (options ? new McpAuthorizationServer(options, store, security, keys) : undefined),
    inject: [MCP_AUTHORIZATION_SERVER_OPTIONS, MCP_AUTHORIZATION_SERVER_STORE, MCP_SECURITY_OPTIONS, SigningKeys],
  },
  AuthorizationServerEndpoint,
];
