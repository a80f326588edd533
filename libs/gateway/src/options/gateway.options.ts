import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import { resolveUpstream, type McpUpstreamOptions, type UpstreamOptions } from './upstream.options';

/**
 * The gateway (option `gateway` of `McpModule`): other MCP servers whose tools, prompts and
 * resources join this host's catalog under a namespace each, behind the host's own
 * authentication, authorization, throttling, confirmation and audit. See docs/gateway.md.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   name: 'desk', version: '1.0.0',
 *   gateway: {
 *     upstreams: [
 *       { name: 'everything', transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } },
 *       { name: 'wiki', transport: { type: 'http', url: 'https://wiki.example/mcp', bearer: process.env.WIKI_TOKEN }, scopes: ['wiki:read'] },
 *     ],
 *   },
 * })
 * ```
 */
export interface McpGatewayOptions {
  /** The upstream MCP servers (none by default). More can be added at run time with `McpGateway.addUpstream`. */
  upstreams?: McpUpstreamOptions[];
}

/** `McpGatewayOptions` validated. */
export interface GatewayOptions {
  readonly upstreams: readonly UpstreamOptions[];
}

/** Token of the resolved `GatewayOptions`. */
export const MCP_GATEWAY_OPTIONS = Symbol('MCP:GATEWAY_OPTIONS');

/** Injects the `GatewayOptions`. */
export const InjectGatewayOptions = (): ParameterDecorator => Inject(MCP_GATEWAY_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const GATEWAY_OPTION_KEYS = ['gateway'] as const;

const GATEWAY_KEYS = new Set(['upstreams']);

/**
 * Validates the `gateway` option: every problem is reported with its fix, and an upstream with
 * a problem is left out.
 */
export function resolveGatewayOptions(o: Record<string, unknown>, report: OptionReport): GatewayOptions {
  const gateway = o.gateway;
  if (gateway === undefined) return { upstreams: [] };
  if (typeof gateway !== 'object' || gateway === null || Array.isArray(gateway)) {
    report('gateway', 'must be an object', "e.g. gateway: { upstreams: [{ name: 'wiki', transport: { … } }] }");
    return { upstreams: [] };
  }
  const given = gateway as Record<string, unknown>;
  optionChecks(given, report, 'gateway.').known(GATEWAY_KEYS);
  return { upstreams: resolveUpstreams(given.upstreams, 'gateway.upstreams', report) };
}

/**
 * Validates a list of upstreams (the `gateway.upstreams` option, or one added at run time).
 * @param taken names already in use (run-time additions), reported as clashes
 */
export function resolveUpstreams(
  value: unknown,
  where: string,
  report: OptionReport,
  taken: ReadonlySet<string> = new Set(),
): UpstreamOptions[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report(where, 'must be an array', "e.g. upstreams: [{ name: 'wiki', transport: { type: 'http', url: '…' } }]");
    return [];
  }
  const names = new Set(taken);
  const prefixes = new Map<string, string>();
  const upstreams: UpstreamOptions[] = [];
  value.forEach((given: unknown, index) => {
    let problems = 0;
    const count: OptionReport = (option, problem, fix) => {
      problems++;
      report(option, problem, fix);
    };
    const upstream = resolveUpstream(given, `${where}[${index}]`, count);
    if (!upstream) return;
    if (names.has(upstream.name))
      count(
        `${upstream.where}.name`,
        `"${upstream.name}" names another upstream too`,
        'give each upstream its own name',
      );
    const namespace = `${upstream.prefix}${upstream.separator}`;
    const other = prefixes.get(namespace);
    if (other !== undefined)
      count(
        `${upstream.where}.prefix`,
        `gives the namespace "${namespace}" that the upstream ${other} has too, so their names could clash`,
        'give each upstream its own prefix',
      );
    names.add(upstream.name);
    prefixes.set(namespace, upstream.name);
    if (problems === 0) upstreams.push(upstream);
  });
  return upstreams;
}
