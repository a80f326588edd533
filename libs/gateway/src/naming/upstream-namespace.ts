import type { McpUpstreamFilter } from '../options/upstream.options';

/** The scheme of MCP Apps views: hosts render only `ui://` resources, so a view keeps it. */
const UI_SCHEME = 'ui://';
/** Where the first MCP Apps hosts read a tool's view from (still sent beside `ui.resourceUri`). */
const LEGACY_VIEW_KEY = 'ui/resourceUri';

/**
 * How one upstream's entries are named in the gateway's catalog, both ways:
 * - tools and prompts: `<prefix><separator><name>` (`everything__echo`);
 * - resource URIs and templates: `<upstream name>+<URI>` (`everything+demo://resource/1`).
 *   A URI scheme may hold `+`, so the result is still a URI, a template stays a template
 *   (its `{variables}` untouched), and the upstream's URI comes back by removing the prefix;
 * - MCP Apps views (`ui://`): the name goes into the authority instead, so that the URI stays a
 *   `ui://` URI a host renders (`ui://basic+basic-server/app.html`); tools that name a view
 *   name it so (`_meta.ui.resourceUri`), the view's own metadata passes as it is.
 *
 * @example
 * ```ts
 * const names = new UpstreamNamespace('everything', 'everything', '__');
 * names.tool('echo');                                  // 'everything__echo'
 * names.uri('demo://resource/1');                      // 'everything+demo://resource/1'
 * names.upstreamUri('everything+demo://resource/1');   // 'demo://resource/1'
 * ```
 */
export class UpstreamNamespace {
  private readonly namePrefix: string;
  private readonly uriPrefix: string;
  private readonly viewPrefix: string;

  constructor(upstream: string, prefix: string, separator: string) {
    this.namePrefix = `${prefix}${separator}`;
    this.uriPrefix = `${upstream}+`;
    this.viewPrefix = `${UI_SCHEME}${upstream}+`;
  }

  /** The gateway's name of an upstream tool or prompt. */
  tool(name: string): string {
    return `${this.namePrefix}${name}`;
  }

  /** The gateway's URI (or URI template) of an upstream resource. */
  uri(upstreamUri: string): string {
    if (upstreamUri.startsWith(UI_SCHEME)) return `${this.viewPrefix}${upstreamUri.slice(UI_SCHEME.length)}`;
    return `${this.uriPrefix}${upstreamUri}`;
  }

  /** The upstream's URI of a gateway URI; `undefined` when the URI is not this upstream's. */
  upstreamUri(uri: string): string | undefined {
    if (uri.startsWith(this.viewPrefix)) return `${UI_SCHEME}${uri.slice(this.viewPrefix.length)}`;
    return uri.startsWith(this.uriPrefix) ? uri.slice(this.uriPrefix.length) : undefined;
  }

  /**
   * A tool's `_meta` with the view it names (`ui.resourceUri`, and the legacy `ui/resourceUri`)
   * renamed as the gateway serves it; the rest as the upstream sent it.
   */
  toolMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const ui = meta?.ui as { resourceUri?: unknown } | undefined;
    const legacy = meta?.[LEGACY_VIEW_KEY];
    if (typeof ui?.resourceUri !== 'string' && typeof legacy !== 'string') return meta;
    return {
      ...meta,
      ...(typeof ui?.resourceUri === 'string' && { ui: { ...ui, resourceUri: this.uri(ui.resourceUri) } }),
      ...(typeof legacy === 'string' && { [LEGACY_VIEW_KEY]: this.uri(legacy) }),
    };
  }

  /**
   * Rewrites the upstream URIs a result carries (resource contents, embedded resources,
   * resource links) to the gateway's, so that the client can read them back through it. The
   * value is not changed: what holds a rewritten URI is copied, the rest is returned as it is.
   */
  rewriteUris<T>(value: T): T {
    return rewrite(value, (uri) => this.uri(uri)) as T;
  }
}

/**
 * Resource-shaped objects (`{ uri, text | blob }`, resource links) get `map(uri)`. Copy on write:
 * only what holds a rewritten URI is copied, so a result without resources (most tool results)
 * is returned as it came, with no allocation on the call's path.
 */
function rewrite(value: unknown, map: (uri: string) => string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, index) => {
      const rewritten = rewrite(item, map);
      if (rewritten !== item) (out ??= [...value])[index] = rewritten;
    });
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (key === '_meta') continue;
    const rewritten = rewrite(record[key], map);
    if (rewritten !== record[key]) (out ??= { ...record })[key] = rewritten;
  }
  const isResource =
    typeof record.uri === 'string' && ('text' in record || 'blob' in record || record.type === 'resource_link');
  if (isResource) (out ??= { ...record }).uri = map(record.uri as string);
  return out ?? record;
}

/** Whether an upstream entry passes its filter: in `allow` (when given) and not in `deny`; `*` matches any run of characters. */
export function passesFilter(name: string, filter: Readonly<McpUpstreamFilter>): boolean {
  if (filter.allow && !filter.allow.some((pattern) => globMatches(pattern, name))) return false;
  return !filter.deny?.some((pattern) => globMatches(pattern, name));
}

function globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}
