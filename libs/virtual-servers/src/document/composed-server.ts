/**
 * A composed virtual server, as stored in the document: an MCP endpoint of its own at `path`,
 * serving a selection of the host's catalog (local tools, REST routes, `rest.apis` operations,
 * upstream tools, and the prompts and resources of those origins) through the host's admission.
 *
 * @example
 * ```json
 * { "name": "finance", "path": "/mcp/finance", "title": "Finance desk",
 *   "credentials": { "scopes": ["finance"] },
 *   "select": [{ "from": "upstream", "name": "ledger", "entries": ["ledger__get_*"] },
 *              { "from": "local", "entries": ["search_customers"], "scopes": ["tickets:read"] }],
 *   "limits": { "callsPerMinute": 120 } }
 * ```
 */
export interface ComposedServer {
  /** Its name: in `initialize`'s `serverInfo`, in the audit records of its calls. */
  name: string;
  /** Where it is served (`/mcp/finance`): a path of its own, not the host's MCP, admin, metrics or well-known paths. */
  path: string;
  /** `serverInfo.title`. */
  title?: string;
  /** The `instructions` its clients get. */
  description?: string;
  /** Who may connect. @default the host's own authentication, every caller of it */
  credentials?: ComposedServerCredentials;
  /** What it serves: an entry is served when one item selects it (and the caller may use it anyway). */
  select: ComposedServerSelection[];
  limits?: {
    /** Calls (`tools/call`, `prompts/get`, `resources/read`) per caller and minute, on each replica. */
    callsPerMinute?: number;
  };
}

/**
 * Its callers: the host's own authentication (API keys, OAuth) narrowed to those holding `scopes`
 * (all) and `roles` (one), or, with `apiKeys`, its own keys only (hashed as the host's API keys
 * file has them: `sha256:<hex>`, as README.md says how to make). On an OAuth host, `resource`
 * makes it an OAuth protected resource of its own (RFC 9728, RFC 8707).
 */
export interface ComposedServerCredentials {
  scopes?: string[];
  roles?: string[];
  /**
   * Its OAuth resource identifier (OAuth hosts): the absolute URL of its path
   * (`https://desk.example/mcp/finance`). Tokens must name it as their audience — and the host's
   * own resource takes none of them — and its metadata is served at
   * `/.well-known/oauth-protected-resource/mcp/finance`. Absent: the host's tokens.
   */
  resource?: string;
  apiKeys?: { principal: string; hash: string; scopes?: string[]; roles?: string[] }[];
}

/** One item of a server's selection: entries of one origin, by name pattern, with scopes and roles of its own. */
export interface ComposedServerSelection {
  /** Where they come from: the app's providers, its REST routes, a `rest.apis` API, an upstream. */
  from: 'local' | 'rest' | 'api' | 'upstream';
  /** The API's or the upstream's name (`api`, `upstream`). @default every one */
  name?: string;
  /** Names (or resource URIs) they must match; `*` stands for any characters. @default all */
  entries?: string[];
  /** Scopes a caller must all hold to be served these (beyond the entry's own). */
  scopes?: string[];
  /** Roles one of which a caller must hold to be served these. */
  roles?: string[];
}
