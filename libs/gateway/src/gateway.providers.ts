import type { Provider } from '@nestjs/common';
import { McpGateway } from './mcp-gateway';

/** The gateway's providers, added by `McpModule`; without upstreams they connect nothing and load no client code. */
export const GATEWAY_PROVIDERS: Provider[] = [McpGateway];
