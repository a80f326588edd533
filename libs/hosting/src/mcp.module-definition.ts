import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';

import type { Type } from '@nestjs/common';
import type { McpAccessPolicy } from '#libs/security';
import type { McpTaskStore } from '#libs/protocol';

/** Extras read when the module is defined (not from the async options). */
export interface McpModuleExtras {
  /** Mount `/health/live` and `/health/ready` (loads `@nestjs/terminus`). @default true */
  health?: boolean;
  /**
   * Which operations parts and features are in the module, for `forRootAsync`, whose options are
   * known too late to decide (`forRoot` decides from its options: a part or feature they leave out
   * is left out by itself). What is left out is not instantiated, and in the package's bundle its
   * code is not even run; options that turn it on then stop the start with a message saying how to
   * fix it.
   * @default every part and feature in the module
   * @example
   * ```ts
   * McpModule.forRootAsync({
   *   useFactory: () => ({ ..., admin: false, metrics: false }),
   *   mount: { admin: false, metrics: false, gateway: false, virtualServers: false, toolSearch: false },
   * })
   * ```
   */
  mount?: {
    admin?: boolean;
    metrics?: boolean;
    /** The gateway (`McpGateway`; upstreams from the `gateway` option or added at run time). */
    gateway?: boolean;
    /** Composed virtual servers (`McpVirtualServers`, the `virtualServers` option). */
    virtualServers?: boolean;
    /** `search_tools` and `call_tool` (the `toolSearch` option). */
    toolSearch?: boolean;
    /** The OAuth authorization server (`McpAuthorizationServer`, the `authorizationServer` option). */
    authorizationServer?: boolean;
    /** The caller's identity downstream (`DownstreamIdentity`, `UserConnections`, the `downstream` option). */
    downstream?: boolean;
    /** Policies, guardrails and pinned catalogs (`McpGovernance`, `CatalogPins`, the `governance` option). */
    governance?: boolean;
  };
  /**
   * The task store class (its dependencies must be global or exported to the app).
   * @default InMemoryTaskStore; ClusterTaskStore (on the backplane) with the `cluster` option
   */
  taskStore?: Type<McpTaskStore>;
  /** Who may see and use which entry. @default ScopeAndRolePolicy (all required scopes, one of the roles) */
  accessPolicy?: Type<McpAccessPolicy>;
}

export const {
  ConfigurableModuleClass: McpConfigurableModule,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  // Every extra is listed so that Nest keeps it out of the options (applied by McpModule).
  .setExtras<McpModuleExtras>(
    { health: true, mount: undefined, taskStore: undefined, accessPolicy: undefined },
    (definition) => definition,
  )
  .build();
