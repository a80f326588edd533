/** Which catalog entry a request uses, for the audit trail, per-entry metrics and statistics. */
export type McpEntryKind = 'tool' | 'prompt' | 'resource';

/**
 * The protocol era a request speaks: `session` (2025-11-25 and before: `initialize`, sessions,
 * requests to the client on its stream) or `stateless` (2026-07-28: every request says who the
 * client is in its `_meta`).
 */
export type McpEra = 'session' | 'stateless';

export const MCP_ERAS: readonly McpEra[] = ['session', 'stateless'];

/** What the engine needs to know about one MCP method, besides who answers it. */
export interface McpMethodTraits {
  /** Recorded in the audit trail even when it succeeds (a request that fails is always recorded). */
  readonly audited: boolean;
  /**
   * Runs catalog code or hands out what such code produced (task results): refused while a
   * fail-closed audit trail cannot write, so nothing runs unaudited. An era: only in that one
   * (the extension's `tasks/get` hands out results; the 2025-11-25 one leaves that to `tasks/result`).
   */
  readonly guarded: boolean | McpEra;
  /** The catalog entry the request names: `params.name` of a tool or prompt, `params.uri` of a resource. */
  readonly names?: { readonly kind: McpEntryKind; readonly by: 'name' | 'uri' };
  /** Names a task by `params.taskId` (the 2026-07-28 `Mcp-Name` header mirrors it). */
  readonly namesTask?: boolean;
  /** Runs the entry it names (counted per entry on the dashboard); a subscription names one without running it. */
  readonly runs?: boolean;
  /** Not sent by clients: reported like a request (a task's background run). */
  readonly internal?: boolean;
  /**
   * The protocol era that has the method: `session` (2025-11-25 and before, removed from
   * 2026-07-28) or `stateless` (2026-07-28 only). Absent: both. A request of the other era
   * gets "method not found".
   */
  readonly era?: McpEra;
  /** Its 2026-07-28 result is a `CacheableResult` (`ttlMs`, `cacheScope`). */
  readonly cacheable?: boolean;
}

const plain = { audited: false, guarded: false } as const;
const sessionOnly = { audited: false, guarded: false, era: 'session' } as const;
const cacheableList = { audited: false, guarded: false, cacheable: true } as const;

/**
 * The MCP methods the host answers: the one table every list of method names is derived from
 * (the dispatcher's routes, the audited and guarded sets, span names, the metrics' `method`
 * label, per-entry statistics). A new method is a row here plus its handler in a method group;
 * the dispatcher refuses to start when the two disagree.
 */
export const MCP_METHODS = {
  initialize: { audited: true, guarded: false, era: 'session' },
  ping: sessionOnly,
  'logging/setLevel': sessionOnly,
  'server/discover': { audited: false, guarded: false, era: 'stateless', cacheable: true },
  'completion/complete': plain,
  'tools/list': cacheableList,
  'tools/call': { audited: true, guarded: true, names: { kind: 'tool', by: 'name' }, runs: true },
  'prompts/list': cacheableList,
  'prompts/get': { audited: true, guarded: true, names: { kind: 'prompt', by: 'name' }, runs: true },
  'resources/list': cacheableList,
  'resources/templates/list': cacheableList,
  'resources/read': {
    audited: true,
    guarded: true,
    names: { kind: 'resource', by: 'uri' },
    runs: true,
    cacheable: true,
  },
  'resources/subscribe': { audited: true, guarded: false, names: { kind: 'resource', by: 'uri' }, era: 'session' },
  'resources/unsubscribe': { audited: false, guarded: false, names: { kind: 'resource', by: 'uri' }, era: 'session' },
  // Answered when the stream ends, not when it opens: its events are the notifications it carries.
  'subscriptions/listen': { audited: false, guarded: false, era: 'stateless' },
  'tasks/get': { audited: true, guarded: 'stateless', namesTask: true },
  'tasks/result': { audited: true, guarded: true, era: 'session' },
  'tasks/cancel': { audited: true, guarded: false, namesTask: true },
  'tasks/update': { audited: true, guarded: false, namesTask: true, era: 'stateless' },
  'tasks/list': { audited: true, guarded: false, era: 'session' },
  'tasks/run': { audited: true, guarded: false, internal: true },
} as const satisfies Record<string, McpMethodTraits>;

/** A method of the table (`tasks/run` included). */
export type McpMethodName = keyof typeof MCP_METHODS;

/** The methods a client may send, each answered by exactly one method group. */
export type McpRequestMethod = {
  [K in McpMethodName]: (typeof MCP_METHODS)[K] extends { internal: true } ? never : K;
}[McpMethodName];

const TRAITS: ReadonlyMap<string, McpMethodTraits> = new Map(Object.entries(MCP_METHODS));

/** Every method of the table, in its order. */
export const MCP_METHOD_NAMES: readonly McpMethodName[] = Object.keys(MCP_METHODS) as McpMethodName[];

/** The methods clients send (the table less its internal rows). */
export const MCP_REQUEST_METHODS: readonly McpRequestMethod[] = MCP_METHOD_NAMES.filter(
  (name) => !(MCP_METHODS[name] as McpMethodTraits).internal,
) as McpRequestMethod[];

/** The eras that have a method of these traits. */
export function erasOf(traits: McpMethodTraits): readonly McpEra[] {
  return traits.era === undefined ? MCP_ERAS : [traits.era];
}

/** Whether a request of `era` with these traits passes the audit gate (see `guarded`). */
export function guardedIn(traits: McpMethodTraits, era: McpEra): boolean {
  return traits.guarded === true || traits.guarded === era;
}

/** The traits of `method`, or `undefined` for a method the host does not answer. */
export function traitsOf(method: string | null): McpMethodTraits | undefined {
  return method === null ? undefined : TRAITS.get(method);
}

/**
 * The param a request's `Mcp-Name` header mirrors (2026-07-28 HTTP): `name` or `uri` of the
 * catalog entry it names, `taskId` of the task; `undefined` for a method that names nothing.
 */
export function routingParamOf(method: string): 'name' | 'uri' | 'taskId' | undefined {
  const traits = TRAITS.get(method);
  return traits?.namesTask ? 'taskId' : traits?.names?.by;
}
