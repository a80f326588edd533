/** The `_meta` of a 2026-07-28 request from a client that declares no capabilities. */
export const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e-raw-2026', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The body field `Mcp-Name` mirrors, for the methods that have one. */
const NAMED_BY: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

let nextId = 1;

/**
 * POSTs a 2026-07-28 request as a conforming client sends it: `_meta` in the params, and the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers mirroring the body; `headers`
 * replace them or are added (set to `undefined`, left out).
 */
export function post2026(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  init: {
    id?: number | string;
    signal?: AbortSignal;
    capabilities?: Record<string, unknown>;
    /** How to send it (another client address: `fetchFrom`). @default the global fetch */
    fetch?: typeof fetch;
  } = {},
): Promise<Response> {
  const named = NAMED_BY[method] === undefined ? undefined : params[NAMED_BY[method]];
  const meta = init.capabilities
    ? { ...META_2026, 'io.modelcontextprotocol/clientCapabilities': init.capabilities }
    : META_2026;
  const sent: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof named === 'string' && { 'mcp-name': named }),
  };
  // Header names are case-insensitive: one given in any case replaces the default.
  for (const [name, value] of Object.entries(headers)) {
    delete sent[name.toLowerCase()];
    sent[name] = value;
  }
  const body = { jsonrpc: '2.0', id: init.id ?? nextId++, method, params: { ...params, _meta: meta } };
  return (init.fetch ?? fetch)(url, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body: JSON.stringify(body),
    signal: init.signal,
  });
}

/** A 2026-07-28 request answered with JSON: its HTTP status and JSON-RPC message. */
export async function rpc2026(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  capabilities?: Record<string, unknown>,
): Promise<{
  status: number;
  body: { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}> {
  const response = await post2026(url, method, params, { accept: 'application/json', ...headers }, { capabilities });
  return { status: response.status, body: (await response.json()) as never };
}
