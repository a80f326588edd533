import type { Client, Transport, VersionNegotiationMode } from '@modelcontextprotocol/client';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from '#libs/apps';
import { guardedFetch, type OutboundPolicy } from '#libs/security';
import type { UpstreamOptions, UpstreamProtocolVersion } from '../options/upstream.options';
import { boundedFetch } from './bounded-fetch';
import { ClientCredentials } from './client-credentials';
import { clientSdk } from './upstream-errors';

/** What the gateway tells an upstream it is. */
export const GATEWAY_CLIENT_INFO = { name: 'nest-mcp-host-gateway', version: '1.0.0' } as const;

/**
 * The client capabilities the gateway declares to its upstreams: it relays their requests for
 * user input, completions and roots to the client whose call they serve.
 */
export const RELAYED_CAPABILITIES = {
  elicitation: { form: {} },
  sampling: {},
  roots: { listChanged: false },
  // The gateway's clients may render MCP Apps views: it sees an upstream's views and app-only tools,
  // and keeps the app-only ones to its own clients that render views.
  extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } },
};

/**
 * The connections the SDK client's session may hold to an HTTP upstream at once: its GET or
 * listen stream (two while one is opened again) and its own few requests (the handshake,
 * notifications, answers to the upstream's requests). The calls go on the gateway's own path,
 * bounded by `limits.maxConnections`.
 */
const SESSION_CONNECTIONS = 4;

/** How the client negotiates the revision the option names. */
function negotiation(version: UpstreamProtocolVersion): VersionNegotiationMode {
  if (version === 'auto') return 'auto';
  return version === '2025-11-25' ? 'legacy' : { pin: version };
}

/**
 * A new SDK client and transport for an upstream (not connected). The client negotiates the
 * revision the upstream speaks (`protocolVersion`: by default it asks, `server/discover`, and
 * falls back to `initialize`). A stdio upstream's stderr is piped, for the gateway to log; its
 * environment is the SDK's minimal default plus what the options give, never the host's whole
 * environment. What the upstream sends is read up to `limits.maxResponseBytes` a message: an
 * HTTP body or SSE event through a capped `fetch`, a stdio line through the transport's buffer
 * limit (past it, the transport ends the process, which is started again).
 */
export function createUpstreamClient(
  upstream: UpstreamOptions,
  reach: OutboundPolicy,
): {
  client: Client;
  transport: Transport;
  /** The URL and headers of an HTTP upstream, for the gateway's own request path. */
  http?: { url: URL; headers: Record<string, string>; credentials?: ClientCredentials };
} {
  // Loaded on first use: an application without upstreams never loads the SDK's client side.
  const { Client, StreamableHTTPClientTransport } = clientSdk();
  const client = new Client(GATEWAY_CLIENT_INFO, {
    capabilities: RELAYED_CAPABILITIES,
    versionNegotiation: { mode: negotiation(upstream.protocolVersion) },
  });
  const { transport: options, limits } = upstream;
  if (options.type === 'http') {
    const headers: Record<string, string> = { ...options.headers };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    const url = new URL(options.url);
    // Every connection the session makes (its redirects' too) is checked against `reach`.
    const send = guardedFetch(reach);
    const bounded = (base: typeof fetch) => boundedFetch(base, limits.maxResponseBytes, SESSION_CONNECTIONS);
    if (!options.oauth)
      return {
        client,
        transport: new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: bounded(send) }),
        http: { url, headers },
      };
    // The SDK client's own requests (the handshake, streams) carry the current token too.
    const credentials = new ClientCredentials(options.oauth, upstream.timeoutMs, Date.now, reach);
    const withToken: typeof fetch = async (input, init) => {
      const sent = new Headers(init?.headers);
      sent.set('authorization', `Bearer ${await credentials.token()}`);
      const response = await send(input, { ...init, headers: sent });
      if (response.status === 401) credentials.invalidate();
      return response;
    };
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: bounded(withToken) });
    return { client, transport, http: { url, headers, credentials } };
  }
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { StdioClientTransport, getDefaultEnvironment } =
    require('@modelcontextprotocol/client/stdio') as typeof import('@modelcontextprotocol/client/stdio');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const transport = new StdioClientTransport({
    command: options.command,
    args: options.args ?? [],
    env: { ...getDefaultEnvironment(), ...options.env },
    ...(options.cwd && { cwd: options.cwd }),
    stderr: 'pipe',
    maxBufferSize: limits.maxResponseBytes,
  });
  return { client, transport };
}
