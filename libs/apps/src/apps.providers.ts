import type { Provider } from '@nestjs/common';
import { AppsExplorer } from './apps.explorer';
import { UiExtension } from './ui.extension';

/**
 * MCP Apps' providers: the start-up checks (run after the catalog's scan) and the extension the
 * engine announces and applies (`MCP_PROTOCOL_EXTENSIONS`).
 */
export const APPS_PROVIDERS: Provider[] = [AppsExplorer, UiExtension];
