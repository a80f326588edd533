import type { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import type { McpEntryKind } from '#libs/protocol';

/**
 * The entry a request's target counts for: the tool or prompt itself, the fixed resource, or
 * the URI template a resource URI matched; `undefined` for names the catalog does not have.
 */
export function catalogEntryOf(tools: ToolRegistry, prompts: PromptRegistry, resources: ResourceRegistry) {
  return (kind: McpEntryKind, target: string): string | undefined => {
    switch (kind) {
      case 'tool':
        return tools.has(target) ? target : undefined;
      case 'prompt':
        return prompts.has(target) ? target : undefined;
      case 'resource': {
        if (resources.resources.has(target)) return target;
        const resolved = resources.resolve(target);
        return resolved?.kind === 'template' ? resolved.handler.template.template : undefined;
      }
      default:
        return undefined;
    }
  };
}
