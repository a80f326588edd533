import type { McpCacheOptions } from './mcp-cache-options.interface';
import type { McpCompleter } from './mcp-prompt-options.interface';
import type { McpIcon } from './mcp-tool-options.interface';

/** Hints for clients about a resource (`Annotations` in the spec). */
export interface McpResourceAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

interface McpResourceCommonOptions {
  /** Programmatic name. Required. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: McpResourceAnnotations;
  icons?: McpIcon[];
  /**
   * Caching hints for 2026-07-28 clients, of `resources/read` results of this resource (or of
   * every resource the template matches) and of the lists it appears in (a list takes its
   * entries' most conservative hints). @default McpModule `cache`, else `{ ttlMs: 0, scope: 'private' }`
   * @example
   * ```ts
   * @McpResource({ uri: 'kb://policies/sla', name: 'sla', cache: { ttlMs: 600_000, scope: 'public' } })
   * ```
   */
  cache?: McpCacheOptions;
  _meta?: Record<string, unknown>;
}

/** Options of `@McpResource()`: one resource at a fixed URI. */
export interface McpResourceOptions extends McpResourceCommonOptions {
  uri: string;
  /** Size in bytes, if known. */
  size?: number;
}

/** Options of `@McpResourceTemplate()`: resources whose URIs match an RFC 6570 template. */
export interface McpResourceTemplateOptions extends McpResourceCommonOptions {
  /** Level 1–2 RFC 6570 template, e.g. `kb://articles/{slug}` or `files://{+path}`. */
  uriTemplate: string;
  /** Completers by template variable, for `completion/complete`. */
  complete?: Record<string, McpCompleter>;
}
