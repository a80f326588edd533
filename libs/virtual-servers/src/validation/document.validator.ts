import type { McpDiagnostic } from '#libs/core';
import { resolveUpstreams, type McpUpstreamOptions } from '#libs/gateway';
import type { VirtualServersDocument } from '../document/virtual-servers.document';
import { validateApis, type RestApis } from './api.validator';
import { validateServers, type ReservedPaths } from './server.validator';
import type { OutboundPolicy } from '#libs/security';
import { upstreamTargetProblems } from './upstream-target.policy';

/** What validation found: the upstreams as given, or every problem, each with its fix. */
export type DocumentValidation =
  { ok: true; upstreams: McpUpstreamOptions[] } | { ok: false; problems: McpDiagnostic[] };

const DOCUMENT_KEYS = new Set(['version', 'updatedAt', 'updatedBy', 'upstreams', 'servers', 'apis']);

/** What a document is validated against: the host's own upstreams, paths and APIs, and where URLs may point. */
export interface DocumentContext {
  /** The names of the upstreams of the `gateway` option. */
  readonly fixedUpstreams: ReadonlySet<string>;
  /** Where run-time URLs may point (`OutboundPolicies.runTime`). */
  readonly policy: OutboundPolicy;
  /** The host's endpoints' paths (without them, a document with servers is refused). */
  readonly reserved?: ReservedPaths;
  /** The REST bridge (without it, a document with APIs is refused). */
  readonly rest?: RestApis;
}

/**
 * Validates the upstreams of a document before anything is stored or applied, every problem at
 * once: each as the `gateway` option is validated (names, prefixes, filters, timeouts), and then
 * what only run time asks: Streamable HTTP only (an admin API must not start processes on the
 * host), no name of an upstream of the `gateway` option, and a URL the target policy allows;
 * then the REST APIs (`validateApis`) and the composed servers (`validateServers`).
 */
export async function validateDocument(
  given: unknown,
  { fixedUpstreams: fixed, policy, reserved, rest }: DocumentContext,
): Promise<DocumentValidation> {
  const problems: McpDiagnostic[] = [];
  const report = (where: string, problem: string, fix: string) => problems.push({ where, problem, fix });
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('document', 'must be a JSON object', 'send { "upstreams": [ … ] }');
    return { ok: false, problems };
  }
  const document = given as Partial<VirtualServersDocument> & Record<string, unknown>;
  for (const key of Object.keys(document))
    if (!DOCUMENT_KEYS.has(key))
      report(key, 'is not a field of the document', `remove it; the fields are ${[...DOCUMENT_KEYS].join(', ')}`);
  const list: unknown = document.upstreams ?? [];
  const upstreams = Array.isArray(list) ? (list as McpUpstreamOptions[]) : [];
  resolveUpstreams(list, 'upstreams', report);
  // One after the other: the problems come in the document's order.
  for (const [index, upstream] of upstreams.entries()) {
    const where = `upstreams[${index}]`;
    if (typeof upstream !== 'object' || upstream === null) continue;
    if (fixed.has(upstream.name))
      report(`${where}.name`, `"${upstream.name}" is an upstream of the gateway option`, 'give it another name');
    const transport = upstream.transport as
      { type?: unknown; url?: unknown; oauth?: { tokenUrl?: unknown } } | undefined;
    if (transport?.type !== 'http') {
      report(
        `${where}.transport.type`,
        'only http upstreams can be added at run time',
        'start stdio servers from the gateway option',
      );
      continue;
    }
    if (typeof transport.url !== 'string') continue; // resolveUpstreams named it
    for (const { problem, fix } of await upstreamTargetProblems(transport.url, policy))
      report(`${where}.transport.url`, problem, fix ?? 'point it at the upstream MCP server');
    const tokenUrl = transport.oauth?.tokenUrl;
    if (typeof tokenUrl === 'string' && /^https?:\/\//i.test(tokenUrl))
      for (const { problem, fix } of await upstreamTargetProblems(tokenUrl, policy))
        report(
          `${where}.transport.oauth.tokenUrl`,
          problem,
          fix ?? "point it at the authorization server's token endpoint",
        );
  }
  const apis = await validateApis(document.apis, rest, policy, report);
  if (document.servers !== undefined && !reserved)
    report('servers', 'cannot be served: this host has no HTTP endpoint', 'remove them, or serve MCP over HTTP');
  else if (reserved)
    validateServers(
      document.servers,
      reserved,
      {
        upstreams: new Set([
          ...fixed,
          ...upstreams.map((upstream) => upstream?.name).filter((name) => typeof name === 'string'),
        ]),
        apis: new Set([...(rest?.fixedNames ?? []), ...apis]),
      },
      report,
    );
  return problems.length > 0 ? { ok: false, problems } : { ok: true, upstreams };
}
