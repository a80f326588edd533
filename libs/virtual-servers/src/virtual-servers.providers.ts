import type { Provider } from '@nestjs/common';
import { ComposedServersEndpoint } from './http/composed-servers.endpoint';
import { VirtualServersEndpoint } from './http/virtual-servers.endpoint';
import { McpVirtualServers } from './servers/mcp-virtual-servers';

/** The virtual servers' providers, added by `McpModule` with the `virtualServers` option only. */
export const VIRTUAL_SERVERS_PROVIDERS: Provider[] = [
  McpVirtualServers,
  VirtualServersEndpoint,
  ComposedServersEndpoint,
];
