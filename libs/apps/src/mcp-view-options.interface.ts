import type { McpCacheOptions } from '#libs/core';

/**
 * The origins a view may reach, beyond its own document (none by default). Each is an origin
 * (`https://api.example.com`, `https://*.example.com`, `wss://live.example.com`; `http://` and
 * `ws://` only for `localhost`): the host puts them in the frame's Content Security Policy, and
 * so does the document the host serves.
 */
export interface McpViewCsp {
  /** `fetch`/XHR/WebSocket targets (`connect-src`). */
  connectDomains?: string[];
  /** Images, scripts, styles, fonts and media (`img-src`, `script-src`, `style-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Nested frames (`frame-src`). */
  frameDomains?: string[];
  /** Base URIs of the document (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser capabilities a view may ask the host for (the frame's `allow`); hosts may refuse. */
export type McpViewPermission = 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite';

/**
 * A script the view runs: its source (or a function that makes it, called once at start-up), or
 * a file read once at start-up (a built bundle). The host adds each to the document as an inline
 * module script and allows exactly these in the document's Content Security Policy, by their SHA-256.
 */
export type McpViewScript = { source: string | (() => string) } | { file: string };

/**
 * Options of `@McpView()`: the `ui://` resource and what the MCP Apps host should know to
 * render it (published as `_meta.ui` of the resource and of its contents).
 *
 * @example
 * ```ts
 * @McpView({
 *   uri: 'ui://desk/ticket-card',
 *   name: 'Ticket card',
 *   scripts: [{ file: join(__dirname, 'assets/ticket-card.js') }],
 *   csp: { resourceDomains: ['https://cdn.example.com'] },
 *   prefersBorder: true,
 * })
 * ```
 */
export interface McpViewOptions {
  /** `ui://<server>/<view>`; what a tool's `ui.resource` names. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** Origins the view may reach. @default none: no network, no outside resources */
  csp?: McpViewCsp;
  /** Browser capabilities the view asks for. @default none */
  permissions?: McpViewPermission[];
  /**
   * A dedicated origin for the view's frame (OAuth callbacks, API allow-lists), in the form the
   * host documents (e.g. `a904794854a047f6.claudemcpcontent.com`). @default the host's sandbox origin
   */
  domain?: string;
  /** Whether the host should draw a border and background around the view. @default the host decides */
  prefersBorder?: boolean;
  /** The scripts the view runs, in order (see `McpViewScript`). @default none */
  scripts?: McpViewScript[];
  /**
   * Allows the `<script>` elements written in the HTML itself, by their hashes. Only for HTML the
   * app ships as it is (a built single-file bundle), never for a template with data in it: a
   * value that smuggles a script in would run. @default false (only `scripts` run)
   */
  trustInlineScripts?: boolean;
  /** Caching hints of the resource for 2026-07-28 clients. @default McpModule `cache` */
  cache?: McpCacheOptions;
}
