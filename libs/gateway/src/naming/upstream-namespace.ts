import type { McpUpstreamFilter } from '../options/upstream.options';

/**
 * How one upstream's entries are named in the gateway's catalog, both ways:
 * - tools and prompts: `<prefix><separator><name>` (`everything__echo`);
 * - resource URIs and templates: `<upstream name>+<URI>` (`everything+demo://resource/1`).
 *   A URI scheme may hold `+`, so the result is still a URI, a template stays a template
 *   (its `{variables}` untouched), and the upstream's URI comes back by removing the prefix.
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

  constructor(upstream: string, prefix: string, separator: string) {
    this.namePrefix = `${prefix}${separator}`;
    this.uriPrefix = `${upstream}+`;
  }

  /** The gateway's name of an upstream tool or prompt. */
  tool(name: string): string {
    return `${this.namePrefix}${name}`;
  }

  /** The gateway's URI (or URI template) of an upstream resource. */
  uri(upstreamUri: string): string {
    return `${this.uriPrefix}${upstreamUri}`;
  }

  /** The upstream's URI of a gateway URI; `undefined` when the URI is not this upstream's. */
  upstreamUri(uri: string): string | undefined {
    return uri.startsWith(this.uriPrefix) ? uri.slice(this.uriPrefix.length) : undefined;
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
