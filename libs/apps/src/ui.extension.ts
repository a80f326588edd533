import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ResourceRegistry, ToolRegistry, type RegisteredHandler } from '#libs/catalog';
import type { ProtocolExtension } from '#libs/protocol';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from './apps.constants';
import { isAppOnly, isUiEntry } from './ui-visibility';

const SETTINGS = Object.freeze({ mimeTypes: [MCP_APP_MIME_TYPE] });

/**
 * MCP Apps as the engine sees it (`io.modelcontextprotocol/ui`): announced in `initialize` and
 * `server/discover` while the catalog has a view or a tool with `_meta.ui` (a local one or an
 * upstream's); app-only tools are listed to and callable by clients that declared the extension
 * only (they keep them from the model and let their views call them), and a call of one is
 * recorded as coming from a view.
 */
@Injectable()
export class UiExtension implements ProtocolExtension, OnModuleInit {
  readonly id = MCP_APPS_EXTENSION;
  /** A view calls its own server's tools by their own names, also behind a gateway's prefix. */
  readonly callsByOwnName = true;
  /** Whether the catalog has anything of MCP Apps; recomputed after a change. */
  private offered: boolean | undefined;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly resources: ResourceRegistry,
  ) {}

  onModuleInit(): void {
    this.tools.onChange(() => (this.offered = undefined));
    this.resources.onChange(() => (this.offered = undefined));
  }

  settings(): Record<string, unknown> | undefined {
    this.offered ??= this.tools.all().some(isUiEntry) || this.resources.resources.all().some(isUiEntry);
    return this.offered ? SETTINGS : undefined;
  }

  /**
   * A client renders this host's views when it names their MIME type (`text/html;profile=mcp-app`)
   * in `mimeTypes`, which the extension makes required: one that declares the extension without
   * it (or with other types only) is served as a client that renders no views — no app-only tools.
   */
  accepts(declared: Record<string, unknown>): boolean {
    const { mimeTypes } = declared;
    return Array.isArray(mimeTypes) && mimeTypes.includes(MCP_APP_MIME_TYPE);
  }

  requires(entry: RegisteredHandler): boolean {
    return isAppOnly(entry);
  }

  originOf(entry: RegisteredHandler): string | undefined {
    return isAppOnly(entry) ? 'view' : undefined;
  }
}
