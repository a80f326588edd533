import { Injectable, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import type { EndpointClaim } from './endpoint-claims';
import { EndpointMessages, EndpointSurfaces } from './endpoints.messages';

/** One MCP endpoint of the application: one `McpModule.forRoot()` / `forRootAsync()` import. */
export interface McpEndpointRef {
  /** The server name (`name` option). */
  readonly name: string;
  /** Path of its Streamable HTTP endpoint; `undefined` with `http: false`. */
  readonly path: string | undefined;
  /** How its HTTP callers authenticate. */
  readonly authMode: 'none' | 'apiKey' | 'oauth';
  /**
   * One of this endpoint's own services (`McpCatalog`, `ToolRegistry`, `SessionStore`, …).
   * @throws when the endpoint has no such provider
   */
  get<T>(token: Type<T> | string | symbol): T;
}

/**
 * The MCP endpoints of the application, one per `McpModule.forRoot()` import. It is app-wide
 * (one instance however many endpoints there are), so it can refuse, at start-up, two endpoints
 * that take the same thing: an HTTP path, a metrics port, the health probes, stdio, a name.
 * Inject it to reach a given endpoint's services; injecting `McpCatalog` directly gives the one
 * of the `McpModule` import your module sees (the first, with several).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class PlanTools implements OnModuleInit {
 *   constructor(private readonly endpoints: McpEndpoints) {}
 *
 *   onModuleInit() {
 *     const catalog = this.endpoints.get('billing').get(McpCatalog);
 *     catalog.addResource({ uri: 'billing://plans', name: 'plans' }, () => '…');
 *   }
 * }
 * ```
 */
@Injectable()
export class McpEndpoints {
  private readonly endpoints = new Map<string, McpEndpointRef>();
  private readonly claims = new Map<string, { endpoint: string; claim: EndpointClaim }>();

  /** Every endpoint, in the order the application created them. */
  all(): readonly McpEndpointRef[] {
    return [...this.endpoints.values()];
  }

  /**
   * The endpoint of that server name.
   * @throws Error naming the endpoints there are, when none has that name
   */
  get(name: string): McpEndpointRef {
    const endpoint = this.endpoints.get(name);
    if (!endpoint) throw new Error(EndpointMessages.unknown(name, [...this.endpoints.keys()]));
    return endpoint;
  }

  /**
   * Adds an endpoint with what it takes of the application. Called as each `McpModule` is
   * created, before any of them mounts anything.
   * @throws McpStartupError listing every claim another endpoint already holds, with the fix
   * @internal
   */
  register(
    endpoint: { name: string; path: string | undefined; authMode: McpEndpointRef['authMode']; moduleRef: ModuleRef },
    claims: readonly EndpointClaim[],
  ): McpEndpointRef {
    const problems: McpDiagnostic[] = [];
    for (const claim of claims) {
      const holder = this.claims.get(claim.key);
      if (!holder) continue;
      const { option } = EndpointSurfaces[claim.surface];
      problems.push({
        where: `McpModule "${endpoint.name}" option "${option}"`,
        problem: EndpointMessages.clash(claim.shown, claim.surface, holder.endpoint, holder.claim.surface),
        fix: EndpointSurfaces[holder.claim.surface === 'name' ? 'name' : claim.surface].fix,
      });
    }
    if (problems.length > 0) throw new McpStartupError(problems);
    for (const claim of claims) this.claims.set(claim.key, { endpoint: endpoint.name, claim });
    const { moduleRef, ...described } = endpoint;
    const ref: McpEndpointRef = { ...described, get: (token) => moduleRef.get(token, { strict: true }) };
    this.endpoints.set(endpoint.name, ref);
    return ref;
  }
}
