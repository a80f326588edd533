import { SetMetadata } from '@nestjs/common';
import { MCP_RESOURCE_METADATA, MCP_RESOURCE_TEMPLATE_METADATA } from '../mcp.constants';
import type { McpResourceOptions, McpResourceTemplateOptions } from '../interfaces/mcp-resource-options.interface';

/**
 * Publishes a provider method as the reader of one resource. Return a string (text), a
 * `Buffer`/`Uint8Array` (blob), `{ text }` / `{ blob }`, an array of contents, or a full
 * `ReadResourceResult`.
 *
 * @example
 * ```ts
 * @McpResource({ uri: 'kb://policies/sla', name: 'sla', mimeType: 'text/markdown', description: 'Service levels' })
 * sla() {
 *   return this.kb.read('sla');
 * }
 * ```
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);

/**
 * Publishes a provider method as the reader of every resource whose URI matches an RFC 6570
 * template (levels 1–2); `@McpArgs()` receives the template variables.
 *
 * @example
 * ```ts
 * @McpResourceTemplate({ uriTemplate: 'kb://articles/{slug}', name: 'article', mimeType: 'text/markdown' })
 * article(@McpArgs() { slug }: { slug: string }) {
 *   return this.kb.article(slug);
 * }
 * ```
 */
export const McpResourceTemplate = (options: McpResourceTemplateOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_TEMPLATE_METADATA, options);
