import { readFileSync } from 'node:fs';
import type { McpGatewayOptions, McpUpstreamOptions } from 'nest-mcp-host';
import type { HostEnvironment } from './host.config';

/**
 * The upstream MCP servers the desk federates, from GATEWAY_UPSTREAMS_FILE (see
 * docs/deployment.md): `{ "upstreams": [ … McpUpstreamOptions … ] }`. Secrets stay out of the
 * file: a string may hold `${NAME}`, replaced by the environment variable NAME, which must be set.
 * McpModule validates the upstreams themselves.
 * @throws Error naming the file and what is wrong with it
 */
export function gatewayOptions(env: HostEnvironment, variables: NodeJS.ProcessEnv = process.env): McpGatewayOptions {
  const file = env.GATEWAY_UPSTREAMS_FILE;
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`GATEWAY_UPSTREAMS_FILE=${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  const upstreams = (parsed as { upstreams?: unknown } | null)?.upstreams;
  if (!Array.isArray(upstreams))
    throw new Error(`GATEWAY_UPSTREAMS_FILE=${file} must hold { "upstreams": [ … ] } (see docs/gateway.md)`);
  const missing = new Set<string>();
  const expand = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
        const found = variables[name];
        if (found === undefined || found === '') missing.add(name);
        return found ?? '';
      });
    if (Array.isArray(value)) return value.map(expand);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item)]));
    return value;
  };
  const expanded = expand(upstreams) as McpUpstreamOptions[];
  if (missing.size > 0)
    throw new Error(
      `GATEWAY_UPSTREAMS_FILE=${file} uses ${[...missing].map((name) => `\${${name}}`).join(', ')}: set ${missing.size > 1 ? 'these variables' : 'this variable'}`,
    );
  return { upstreams: expanded };
}
