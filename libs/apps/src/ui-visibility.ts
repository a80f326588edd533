import type { CatalogEntry } from '#libs/catalog';
import { MCP_APP_MIME_TYPE } from './apps.constants';

/**
 * Whether an entry is a tool only views may call (`_meta.ui.visibility` without `model`), read from
 * its wire definition: a local tool's `ui` option and an upstream tool's own metadata alike.
 */
export function isAppOnly(entry: CatalogEntry): boolean {
  const ui = (entry.definition as { _meta?: { ui?: { visibility?: unknown } } })._meta?.ui;
  const visibility = ui?.visibility;
  return Array.isArray(visibility) && visibility.includes('app') && !visibility.includes('model');
}

/** Whether an entry is part of MCP Apps: a tool with a view or a visibility, or a view. */
export function isUiEntry(entry: CatalogEntry): boolean {
  const definition = entry.definition as { _meta?: { ui?: unknown }; mimeType?: unknown };
  return definition._meta?.ui !== undefined || definition.mimeType === MCP_APP_MIME_TYPE;
}
