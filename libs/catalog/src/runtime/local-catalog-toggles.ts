import { Injectable } from '@nestjs/common';
import { PromptRegistry } from '../prompts/prompt.registry';
import { ResourceRegistry } from '../resources/resource.registry';
import { ToolRegistry } from '../tools/tool.registry';
import { catalogListOf, type McpCatalogKind } from './catalog-lists';
import type { CatalogToggles } from './catalog-toggles';

/** The toggles of one replica: the entry's list changes (and tells its listeners), nothing more. */
@Injectable()
export class LocalCatalogToggles implements CatalogToggles {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
  ) {}

  set(kind: McpCatalogKind, key: string, enabled: boolean): boolean {
    return catalogListOf(kind, this.tools, this.prompts, this.resources).setEnabled(key, enabled);
  }
}
