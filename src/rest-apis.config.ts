import type { McpRestApiOptions } from 'nest-mcp-host';
import { readConfigList } from './config-file';
import type { HostEnvironment } from './host.config';

/**
 * The external REST APIs the desk exposes as tools, from REST_APIS_FILE (see
 * docs/deployment.md): `{ "apis": [ … McpRestApiOptions … ] }`, each API's OpenAPI document
 * mapped to tools that call it with its own credentials (docs/rest-bridge.md). A string may hold
 * `${NAME}`, replaced by the environment variable NAME, which must be set. McpModule validates
 * the APIs themselves.
 * @throws Error naming the file and what is wrong with it
 */
export function restApisOptions(env: HostEnvironment, variables: NodeJS.ProcessEnv = process.env): McpRestApiOptions[] {
  const file = env.REST_APIS_FILE;
  if (!file) return [];
  return readConfigList('REST_APIS_FILE', file, 'apis', 'docs/rest-bridge.md', variables) as McpRestApiOptions[];
}
