import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { McpResource } from '#libs/core';
import { MCP_APP_MIME_TYPE, MCP_VIEW_METADATA } from './apps.constants';
import type { McpViewOptions } from './mcp-view-options.interface';
import { resourceUiMeta } from './view-meta';
import { ViewDocumentInterceptor } from './view-document.interceptor';

/**
 * Publishes a provider method as an MCP Apps view: a `ui://` resource of type
 * `text/html;profile=mcp-app` that hosts such as Claude, ChatGPT, VS Code and Cursor render in
 * a sandboxed frame beside the result of a tool that names it (`@McpTool({ ui: { resource } })`).
 * The method returns the view's HTML (a template the app renders, or a static file it reads); the
 * host serves it with a strict Content Security Policy in a `<meta>` element (no network, no
 * outside resources, no script but the declared `scripts`, unless the options say otherwise) and
 * the `_meta.ui` metadata. The view is a resource like any other: `@RequireScopes`, `@Roles`,
 * guards and interceptors apply. Its options are checked at start-up.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class TicketViews {
 *   @McpView({ uri: 'ui://desk/ticket-card', name: 'Ticket card', scripts: [{ file: join(__dirname, 'card.js') }] })
 *   card() {
 *     return '<main id="card">Loading…</main>';
 *   }
 * }
 * ```
 */
export const McpView = (options: McpViewOptions): MethodDecorator =>
  applyDecorators(
    McpResource({
      uri: options.uri,
      name: options.name,
      ...(options.title !== undefined && { title: options.title }),
      ...(options.description !== undefined && { description: options.description }),
      mimeType: MCP_APP_MIME_TYPE,
      ...(options.cache !== undefined && { cache: options.cache }),
      _meta: { ui: resourceUiMeta(options) },
    }),
    SetMetadata(MCP_VIEW_METADATA, options),
    UseInterceptors(ViewDocumentInterceptor),
  );
