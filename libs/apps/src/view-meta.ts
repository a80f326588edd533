import type { McpViewOptions } from './mcp-view-options.interface';

/** The resource's `_meta.ui` as the extension names it (`McpUiResourceMeta`): what the host reads to frame the view. */
export interface McpViewMeta {
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  permissions?: Partial<Record<string, Record<string, never>>>;
  domain?: string;
  prefersBorder?: boolean;
}

/** `_meta.ui` of a view's resource and contents, from its options (given ones only). */
export function resourceUiMeta(options: McpViewOptions): McpViewMeta {
  const { csp, permissions, domain, prefersBorder } = options;
  return {
    ...(csp && { csp: { ...csp } }),
    ...(Array.isArray(permissions) &&
      permissions.length > 0 && { permissions: Object.fromEntries(permissions.map((name) => [name, {}])) }),
    ...(domain !== undefined && { domain }),
    ...(prefersBorder !== undefined && { prefersBorder }),
  };
}
