import { McpStartupError, type McpDiagnostic, type OptionReport } from '#libs/core';
import { CATALOG_OPTION_KEYS, resolveCatalogOptions, type CatalogOptions } from '#libs/catalog';
import { resolveSecurityOptions, SECURITY_OPTION_KEYS, type SecurityOptions } from '#libs/security';
import { INVOCATION_OPTION_KEYS, resolveInvocationOptions, type InvocationOptions } from '#libs/invocation';
import { PROTOCOL_OPTION_KEYS, resolveProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import {
  ADMIN_ROLE,
  ADMIN_SCOPE,
  approvalPageOf,
  OPERATIONS_OPTION_KEYS,
  resolveOperationsOptions,
  type OperationsOptions,
} from '#libs/operations';
import { REST_OPTION_KEYS, resolveRestOptions, type RestOptions } from '#libs/rest';
import { GATEWAY_OPTION_KEYS, resolveGatewayOptions, type GatewayOptions } from '#libs/gateway';
import {
  AUTHORIZATION_SERVER_OPTION_KEYS,
  ENTERPRISE_MANAGED_AUTHORIZATION,
  resolveAuthorizationServerOptions,
  type AuthorizationServerOptions,
} from '#libs/authorization-server';
import { DOWNSTREAM_OPTION_KEYS, resolveDownstreamOptions, type DownstreamOptions } from '#libs/downstream-identity';
import {
  resolveVirtualServersOptions,
  VIRTUAL_SERVERS_OPTION_KEYS,
  type VirtualServersOptions,
} from '#libs/virtual-servers';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { HOSTING_OPTION_KEYS, resolveHostingOptions, type HostingOptions } from './hosting.options';
import { resolveToolSearchOptions, TOOL_SEARCH_OPTION_KEYS, type ToolSearchOptions } from '#libs/tool-search';
import { CLUSTER_OPTION_KEYS, resolveClusterBackplane, type ClusterSlice } from './cluster.options';
import { GOVERNANCE_OPTION_KEYS, resolveGovernanceOptions, type GovernanceOptions } from '#libs/governance';

/** `McpModuleOptions` after validation, in the slices the libraries read. */
export interface ResolvedMcpOptions {
  catalog: CatalogOptions;
  protocol: ProtocolOptions;
  invocation: InvocationOptions;
  security: SecurityOptions;
  operations: OperationsOptions;
  hosting: HostingOptions;
  rest: RestOptions;
  gateway: GatewayOptions;
  virtualServers: VirtualServersOptions | undefined;
  toolSearch: ToolSearchOptions | undefined;
  governance: GovernanceOptions | undefined;
  cluster: ClusterSlice;
  authorizationServer: AuthorizationServerOptions | undefined;
  downstream: DownstreamOptions;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  ...CATALOG_OPTION_KEYS,
  ...PROTOCOL_OPTION_KEYS,
  ...HOSTING_OPTION_KEYS,
  ...SECURITY_OPTION_KEYS,
  ...INVOCATION_OPTION_KEYS,
  ...OPERATIONS_OPTION_KEYS,
  ...REST_OPTION_KEYS,
  ...GATEWAY_OPTION_KEYS,
  ...VIRTUAL_SERVERS_OPTION_KEYS,
  ...TOOL_SEARCH_OPTION_KEYS,
  ...GOVERNANCE_OPTION_KEYS,
  ...CLUSTER_OPTION_KEYS,
  ...AUTHORIZATION_SERVER_OPTION_KEYS,
  ...DOWNSTREAM_OPTION_KEYS,
]);

/**
 * Validates `McpModule` options, each slice by the library that reads it, and merges the
 * defaults. Every problem is reported at once, each with how to fix it.
 * @throws McpStartupError
 */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  const problems: McpDiagnostic[] = [];
  const report: OptionReport = (option, problem, fix) =>
    problems.push({ where: `McpModule option "${option}"`, problem, fix });
  const o = (options ?? {}) as unknown as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN_OPTIONS.has(key))
      report(key, 'is not a known option', `remove it; known options are: ${[...KNOWN_OPTIONS].join(', ')}`);
  }
  const catalog = resolveCatalogOptions(o, report);
  const protocol = resolveProtocolOptions(o, report);
  const hosting = resolveHostingOptions(o, report);
  let security = resolveSecurityOptions(o, report);
  const operations = resolveOperationsOptions(
    o,
    { http: hosting.http, stdio: hosting.stdio, mcpPath: hosting.path, authMode: security.auth.mode },
    report,
  );
  const { admin, approvals } = operations;
  // The facade grants an administrator's or an approver's scopes and roles only through a claims map.
  const authorizationServer = resolveAuthorizationServerOptions(o, security.auth, report, {
    scopes: [ADMIN_SCOPE, ...approvals.scopes],
    roles: [ADMIN_ROLE, ...approvals.roles],
  });
  if (authorizationServer && security.auth.mode === 'oauth') {
    // The resource server trusts the host's own authorization server, and publishes it.
    security = {
      ...security,
      auth: { ...security.auth, issuer: authorizationServer.issuer, jwksUri: authorizationServer.endpoints.jwks },
    };
    if (authorizationServer.trustedIdps.length > 0)
      protocol.server = { ...protocol.server, extensions: { [ENTERPRISE_MANAGED_AUTHORIZATION]: {} } };
  }
  const invocation = resolveInvocationOptions(o, report, {
    redactor: security.redactor,
    // The approval page is on the dashboard, so it needs one on HTTP.
    approvalPage: admin && hosting.http ? approvalPageOf(approvals.publicUrl, admin.path) : undefined,
  });
  const rest = resolveRestOptions(o, report);
  const gateway = resolveGatewayOptions(o, report);
  const virtualServers = resolveVirtualServersOptions(o, report);
  const toolSearch = resolveToolSearchOptions(o, report);
  const downstream = resolveDownstreamOptions(
    o,
    [
      ...gateway.upstreams.map(({ where, credential }) => ({ where: `${where}.credential`, credential })),
      ...rest.apis.map(({ where, credential }) => ({ where: `${where}.credential`, credential })),
    ],
    { auth: security.auth, facade: authorizationServer },
    report,
  );
  // An upstream or API declared with `pin` turns governance on (its quarantine is governance's).
  const governance = resolveGovernanceOptions(
    o,
    report,
    gateway.upstreams.some((upstream) => upstream.pin) || rest.apis.some((api) => api.pin),
  );
  const cluster: ClusterSlice = {
    backplane: resolveClusterBackplane(o, report),
    replica: operations.replica,
    // Several hosts in one application (or on one engine) keep their state apart by name.
    namespace: typeof o.name === 'string' ? o.name : 'mcp',
  };
  if (problems.length > 0) throw new McpStartupError(problems);
  return {
    catalog,
    protocol,
    invocation,
    security,
    operations,
    hosting,
    rest,
    gateway,
    virtualServers,
    toolSearch,
    governance,
    cluster,
    authorizationServer,
    downstream,
  };
}

/** Token of the `ResolvedMcpOptions` (internal: libraries inject their own slice). */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP:RESOLVED_OPTIONS');
