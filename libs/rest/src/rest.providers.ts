import type { Provider } from '@nestjs/common';
import { RestBridgeExplorer } from './discovery/rest-bridge.explorer';

/**
 * The REST bridge's provider, added by `McpModule`: it does nothing unless routes are chosen, and
 * until then loads none of the bridge's description, registration and execution code.
 */
export const REST_PROVIDERS: Provider[] = [RestBridgeExplorer];
