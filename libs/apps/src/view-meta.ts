import type { McpViewOptions } from './mcp-view-options.interface';

/** `_meta.ui.csp` as the extension names it (`McpUiResourceCsp`): the origins the host lets the view's frame reach. */
export interface McpViewCspMeta {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

/** The resource's `_meta.ui` as the extension names it (`McpUiResourceMeta`): what the host reads to frame the view. */
export interface McpViewMeta {
  csp: McpViewCspMeta;
  permissions?: Partial<Record<string, Record<string, never>>>;
  domain?: string;
  prefersBorder?: boolean;
}

/**
 * `_meta.ui` of a view's resource and contents, from its options. The policy is always declared,
 * every directive spelled out (an empty list: none), so that a client framing the view applies
 * exactly it — not its own default for a view that declared nothing, which may be looser — even
 * when it wraps the document and so loses the policy the document carries itself.
 */
export function resourceUiMeta(options: McpViewOptions): McpViewMeta {
  const { csp, permissions, domain, prefersBorder } = options;
  return {
    csp: {
      connectDomains: [...(csp?.connectDomains ?? [])],
      resourceDomains: [...(csp?.resourceDomains ?? [])],
      frameDomains: [...(csp?.frameDomains ?? [])],
      baseUriDomains: [...(csp?.baseUriDomains ?? [])],
    },
    ...(Array.isArray(permissions) &&
      permissions.length > 0 && { permissions: Object.fromEntries(permissions.map((name) => [name, {}])) }),
    ...(domain !== undefined && { domain }),
    ...(prefersBorder !== undefined && { prefersBorder }),
  };
}
