import type { Provider } from '@nestjs/common';
import { RestBridgeExplorer } from './discovery/rest-bridge.explorer';
import { RestToolRegistrar } from './discovery/rest-tool.registrar';
import { RestApiLoader } from './remote/rest-api.loader';

/** The REST bridge's providers, added by `McpModule`; they do nothing unless routes or APIs are chosen. */
export const REST_PROVIDERS: Provider[] = [RestToolRegistrar, RestBridgeExplorer, RestApiLoader];
