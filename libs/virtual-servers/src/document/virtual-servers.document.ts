import type { McpUpstreamOptions } from '#libs/gateway';
import type { McpRestApiOptions } from '#libs/rest';
import type { ComposedServer } from './composed-server';

/**
 * The configuration managed at run time, as stored, exported and imported (one JSON document,
 * for GitOps): the upstream MCP servers added through the admin API, each as the `gateway`
 * option takes it, the REST APIs as `rest.apis` takes them, and the composed virtual servers,
 * each an endpoint of its own. `version` goes up by one with every change; a change made against an older
 * version is refused (409), so two administrators cannot overwrite each other unknowingly.
 */
export interface VirtualServersDocument {
  version: number;
  /** When and by whom it last changed (ISO-8601, principal id). */
  updatedAt: string | null;
  updatedBy: string | null;
  upstreams: McpUpstreamOptions[];
  /** Composed virtual servers (absent in documents stored before they existed). */
  servers?: ComposedServer[];
  /** REST APIs, each as `rest.apis` takes one (its document at an http(s) URL); absent in older documents. */
  apis?: McpRestApiOptions[];
}

/** The document before anything was stored. */
export const EMPTY_DOCUMENT: VirtualServersDocument = { version: 0, updatedAt: null, updatedBy: null, upstreams: [] };

/** What an export shows instead of a secret; an import that keeps it keeps the stored secret. */
export const REDACTED = '[REDACTED]';

/** The name of the document in the store and in the word that it changed. */
export const DOCUMENT_NAME = 'virtual-servers';
