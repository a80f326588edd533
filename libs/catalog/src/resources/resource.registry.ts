import { Injectable } from '@nestjs/common';
import type { McpDiagnostic } from '#libs/core';
import { CatalogList } from '../lists/catalog-list';
import { CatalogResourceMessages } from '../messages/catalog.messages';
import type { RegisteredResource, RegisteredResourceTemplate } from './registered-resource.interface';

/** What a URI resolves to: a fixed resource, or a template and the variables it matched. */
export type ResolvedResource =
  | { kind: 'resource'; handler: RegisteredResource; variables: Record<string, string> }
  | { kind: 'template'; handler: RegisteredResourceTemplate; variables: Record<string, string> };

/** The resources and resource templates the host serves. */
@Injectable()
export class ResourceRegistry {
  readonly resources = new CatalogList<RegisteredResource>('resources', 'resources', 'resource URI');
  readonly templates = new CatalogList<RegisteredResourceTemplate>(
    'resources/templates',
    'resourceTemplates',
    'URI template',
  );

  /** Problems adding these would cause: duplicate URIs or templates, ambiguous templates. */
  check(resources: readonly RegisteredResource[], templates: readonly RegisteredResourceTemplate[]): McpDiagnostic[] {
    const diagnostics = [...this.resources.duplicates(resources), ...this.templates.duplicates(templates)];
    const seen = [...this.templates.all()];
    for (const template of templates) {
      const other = seen.find(
        (candidate) => candidate.template.skeleton === template.template.skeleton && candidate.key !== template.key,
      );
      if (other) {
        diagnostics.push({
          where: template.where,
          ...CatalogResourceMessages.ambiguousTemplate(template.key, other.key, other.where),
        });
      }
      seen.push(template);
    }
    return diagnostics;
  }

  /** The fixed resource at `uri`, else the first template matching it. */
  resolve(uri: string): ResolvedResource | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { kind: 'resource', handler: resource, variables: {} };
    for (const template of this.templates.all()) {
      const variables = template.template.match(uri);
      if (variables) return { kind: 'template', handler: template, variables };
    }
    return undefined;
  }

  /** Calls `listener` after every change of either list, with the entries that changed (see `CatalogList.onChange`). */
  onChange(listener: (changed: readonly (RegisteredResource | RegisteredResourceTemplate)[]) => void): () => void {
    const offResources = this.resources.onChange(listener);
    const offTemplates = this.templates.onChange(listener);
    return () => {
      offResources();
      offTemplates();
    };
  }
}
