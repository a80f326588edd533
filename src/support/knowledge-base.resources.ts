import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpCompletion,
  McpResource,
  McpResourceTemplate,
  resourceNotFound,
  RequireScopes,
} from 'nest-mcp-host';
import { DeskScopes } from './desk.scopes';
import { KnowledgeBaseStore } from './knowledge-base.store';

/**
 * The knowledge base as MCP resources: an index, and each article by slug. Articles change
 * rarely, so 2026-07-28 clients may keep them for five minutes (private: only desk staff may read
 * them, so no cache is shared between callers).
 */
@Injectable()
@RequireScopes(DeskScopes.knowledgeBase)
export class KnowledgeBaseResources {
  constructor(private readonly kb: KnowledgeBaseStore) {}

  @McpResource({
    uri: 'kb://articles',
    name: 'kb-index',
    title: 'Knowledge base index',
    description: 'Every article with its slug; read kb://articles/{slug} for one.',
    mimeType: 'text/markdown',
    cache: { ttlMs: 5 * 60_000 },
  })
  index() {
    return this.kb
      .all()
      .map((article) => `- [${article.title}](kb://articles/${article.slug})`)
      .join('\n');
  }

  @McpResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb-article',
    title: 'Knowledge base article',
    description: 'One support article, by slug.',
    mimeType: 'text/markdown',
    cache: { ttlMs: 5 * 60_000 },
  })
  article(@McpArgs('slug') slug: string) {
    const article = this.kb.find(slug);
    if (!article) throw resourceNotFound(`kb://articles/${slug}`);
    return `# ${article.title}\n\n${article.body}`;
  }

  @McpCompletion({ template: 'kb://articles/{slug}', argument: 'slug' })
  slugs(typed: string): string[] {
    return this.kb
      .all()
      .map((article) => article.slug)
      .filter((slug) => slug.startsWith(typed));
  }
}
