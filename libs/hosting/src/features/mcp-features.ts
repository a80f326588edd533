import type { InjectionToken, Provider } from '@nestjs/common';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { UserConnections } from '#libs/downstream-identity';
import { CatalogPins, McpGovernance } from '#libs/governance';
import { MCP_ADMIN_FEATURES, type AdminFeatures } from '#libs/operations';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import type { ResolvedMcpOptions } from '../options/mcp-options.resolver';
import { FeatureMessages } from './features.messages';

/**
 * The features whose providers (and code) are in the module. `forRoot` knows its options, so a
 * feature they leave out is not registered, and its library's code is not even run (the bundle's
 * barrels require a file when one of its names is first read); `forRootAsync`'s options come too
 * late to decide, so its module holds every feature its `mount` extra does not leave out.
 */
export interface McpFeatureSwitches {
  gateway: boolean;
  /** External REST APIs as tools (`rest.apis`; composed servers add them at run time). */
  restApis: boolean;
  virtualServers: boolean;
  toolSearch: boolean;
  authorizationServer: boolean;
  downstream: boolean;
  governance: boolean;
}

export type McpFeature = keyof McpFeatureSwitches;

/** The features that options given to `forRoot` turn on. */
export function featuresOf(options: McpModuleOptions): McpFeatureSwitches {
  const virtualServers = options.virtualServers !== undefined && options.virtualServers !== false;
  // Composed servers add upstreams through the gateway at run time.
  const gateway = options.gateway !== undefined || virtualServers;
  const apis = (options.rest?.apis?.length ?? 0) > 0;
  const authorizationServer = options.authorizationServer !== undefined;
  return {
    gateway,
    restApis: apis || virtualServers,
    virtualServers,
    toolSearch: options.toolSearch !== undefined && options.toolSearch !== false,
    authorizationServer,
    // Upstreams and APIs take their credentials downstream; the facade signs in their users.
    downstream: options.downstream !== undefined || gateway || apis || authorizationServer,
    // An upstream or API declared with `pin` turns governance on (its quarantine is governance's).
    governance: options.governance !== undefined || gateway || apis,
  };
}

/** The features `forRootAsync` holds: all but those its `mount` extra sets to `false` (and what needs them). */
export function mountedFeatures(
  mount: Partial<Record<Exclude<McpFeature, 'restApis'>, boolean>> = {},
): McpFeatureSwitches {
  const gateway = mount.gateway !== false;
  return {
    gateway,
    // No switch of its own: the loader is light until an API is given.
    restApis: true,
    // Composed servers add upstreams through the gateway: without it they are left out too.
    virtualServers: mount.virtualServers !== false && gateway,
    toolSearch: mount.toolSearch !== false,
    authorizationServer: mount.authorizationServer !== false,
    downstream: mount.downstream !== false,
    governance: mount.governance !== false,
  };
}

/** The features the validated options need. */
function neededFeatures(options: ResolvedMcpOptions): McpFeatureSwitches {
  const virtualServers = options.virtualServers !== undefined;
  const gateway = options.gateway.upstreams.length > 0 || virtualServers;
  const apis = options.rest.apis.length > 0;
  const { idp, connections, facadeIssuer } = options.downstream;
  return {
    gateway,
    restApis: apis || virtualServers,
    virtualServers,
    toolSearch: options.toolSearch !== undefined,
    authorizationServer: options.authorizationServer !== undefined,
    downstream: idp !== undefined || connections !== undefined || facadeIssuer !== undefined || gateway || apis,
    governance: options.governance !== undefined,
  };
}

/**
 * Refuses options that need a feature the module was defined without (a `forRootAsync` whose
 * `mount` left it out), each with its fix.
 * @throws McpStartupError
 */
export function checkFeatures(options: ResolvedMcpOptions, on: McpFeatureSwitches): true {
  const needed = neededFeatures(options);
  const problems: McpDiagnostic[] = (Object.keys(needed) as McpFeature[])
    .filter((feature) => needed[feature] && !on[feature])
    .map((feature) => ({ where: `McpModule option "${feature}"`, ...FeatureMessages.leftOut(feature) }));
  if (problems.length > 0) throw new McpStartupError(problems);
  return true;
}

/**
 * The features the admin dashboard shows, those of them in the module: their classes are named
 * (and so loaded) only for a feature that is on.
 */
export function adminFeaturesProvider(on: McpFeatureSwitches): Provider {
  const features: (readonly [keyof AdminFeatures, InjectionToken])[] = [
    ...(on.authorizationServer ? [['authorizationServer', McpAuthorizationServer] as const] : []),
    ...(on.downstream ? [['connections', UserConnections] as const] : []),
    ...(on.governance ? [['governance', McpGovernance] as const, ['pins', CatalogPins] as const] : []),
  ];
  return {
    provide: MCP_ADMIN_FEATURES,
    useFactory: (...services: unknown[]): AdminFeatures =>
      Object.fromEntries(features.map(([name], i) => [name, services[i] ?? undefined])),
    inject: features.map(([, token]) => ({ token, optional: true })),
  };
}
