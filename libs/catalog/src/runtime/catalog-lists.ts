import type { CatalogEntry, CatalogList } from '../lists/catalog-list';
import type { PromptRegistry } from '../prompts/prompt.registry';
import type { ResourceRegistry } from '../resources/resource.registry';
import type { ToolRegistry } from '../tools/tool.registry';

/** The kinds of catalog entry `McpCatalog` adds, removes, enables and disables. */
export type McpCatalogKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** The list of the catalog that holds the entries of `kind`: what removes, enables and disables them. */
export function catalogListOf(
  kind: McpCatalogKind,
  tools: ToolRegistry,
  prompts: PromptRegistry,
  resources: ResourceRegistry,
): Pick<CatalogList<CatalogEntry>, 'remove' | 'setEnabled'> {
  switch (kind) {
    case 'tool':
      return tools;
    case 'prompt':
      return prompts;
    case 'resource':
      return resources.resources;
    case 'resourceTemplate':
      return resources.templates;
  }
}
