import type { Provider } from '@nestjs/common';
import { RestApiLoader } from './rest-api.loader';

/** External REST APIs as tools: added by `McpModule` when the `rest.apis` option (or composed servers) can add one. */
export const REST_API_PROVIDERS: Provider[] = [RestApiLoader];
