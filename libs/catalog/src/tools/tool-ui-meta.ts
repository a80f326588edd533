import type { McpToolOptions } from '#libs/core';
import { CatalogMessages } from '../messages/catalog.messages';

const VISIBILITIES = new Set<unknown>(['model', 'app']);
/** `ui://` then an authority: the scheme MCP Apps views must use. */
const UI_URI = /^ui:\/\/[^/?#\s]+(?:\/[^\s]*)?$/;
/** The key the first MCP Apps hosts read the view's URI from; still published for them. */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/**
 * The `_meta` of a tool with its `ui` option (MCP Apps): `ui.resourceUri` and `ui.visibility` as
 * the extension names them, the URI also under the legacy flat key. Reports a malformed option.
 */
export function toolMetaWithUi(
  options: McpToolOptions,
  report: (message: { problem: string; fix: string }) => void,
): Record<string, unknown> | undefined {
  const { ui } = options;
  if (ui === undefined) return options._meta;
  if (typeof ui !== 'object' || ui === null) {
    report(CatalogMessages.badUi(ui));
    return options._meta;
  }
  const { resource, visibility } = ui;
  if (resource !== undefined && (typeof resource !== 'string' || !UI_URI.test(resource)))
    report(CatalogMessages.badUiResource(resource));
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) ||
      visibility.length === 0 ||
      visibility.some((value) => !VISIBILITIES.has(value)) ||
      new Set(visibility).size !== visibility.length)
  )
    report(CatalogMessages.badUiVisibility(visibility));
  return {
    ...options._meta,
    ui: { ...(resource !== undefined && { resourceUri: resource }), ...(visibility && { visibility }) },
    ...(resource !== undefined && { [LEGACY_RESOURCE_URI_KEY]: resource }),
  };
}
