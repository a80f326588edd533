import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type ClientCapabilities as ClientCapabilitiesV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { WireTap } from './wire-tap';

/** The two protocol revisions the host serves side by side. */
export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export type ProtocolVersion = typeof LEGACY | typeof MODERN;

/** What a client's user answers when the host asks to confirm a destructive call. */
export type ElicitAnswer = { action: 'accept'; content: { confirm: boolean } } | { action: 'decline' | 'cancel' };

/** What a test gives a client when it connects. */
export interface ConnectOptions {
  /** Headers on every request (e.g. an API key). */
  headers?: Record<string, string>;
  /** Declares form elicitation and answers each question with this (the question is recorded). */
  elicit?: (message: string) => ElicitAnswer;
  /** Declares the tasks extension (2026-07-28 clients; 2025-era clients ask per call). */
  tasksExtension?: boolean;
  /** Other extensions it declares (`capabilities.extensions`), e.g. MCP Apps'. */
  extensions?: Record<string, object>;
}

/** A connected SDK v1 client (2025-11-25) and the record of its wire. */
export interface ConnectedV1 {
  client: ClientV1;
  transport: TransportV1;
  tap: WireTap;
}

/** A connected SDK v2 client and the record of its wire. */
export interface ConnectedV2 {
  client: ClientV2;
  transport: TransportV2;
  tap: WireTap;
}

/** The SDK v1 `Client` over Streamable HTTP: the 2025 era, stateful or stateless as the host decides. */
export async function connectSdkV1(url: string, name: string, options: ConnectOptions = {}): Promise<ConnectedV1> {
  const tap = new WireTap();
  const client = new ClientV1(
    { name, version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicit && { elicitation: { form: {} } }),
        ...(options.extensions && { extensions: options.extensions }),
      },
    },
  );
  const elicit = options.elicit;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params.message));
  const transport = new TransportV1(new URL(url), { fetch: tap.fetch, requestInit: { headers: options.headers } });
  await client.connect(transport);
  return { client, transport, tap };
}

/**
 * The SDK v2 `Client` over Streamable HTTP with `versionNegotiation` `mode`: `'auto'` probes
 * `server/discover` and falls back to `initialize`; `{ pin }` speaks that revision or fails.
 */
export async function connectSdkV2(
  url: string,
  name: string,
  mode: VersionNegotiationMode,
  options: ConnectOptions = {},
): Promise<ConnectedV2> {
  const tap = new WireTap();
  const capabilities: ClientCapabilitiesV2 = {
    ...(options.elicit && { elicitation: { form: {} } }),
    ...((options.tasksExtension || options.extensions) && {
      extensions: {
        ...(options.tasksExtension && { 'io.modelcontextprotocol/tasks': {} }),
        ...options.extensions,
      },
    }),
  };
  const client = new ClientV2({ name, version: '1.0.0' }, { capabilities, versionNegotiation: { mode } });
  const elicit = options.elicit;
  if (elicit) client.setRequestHandler('elicitation/create', async (request) => elicit(request.params.message));
  const transport = new TransportV2(new URL(url), { fetch: tap.fetch, requestInit: { headers: options.headers } });
  await client.connect(transport);
  return { client, transport, tap };
}

/** Per-call options the tests use (progress and cancellation). */
export interface CallOptions {
  onprogress?: (progress: { progress: number; total?: number }) => void;
  signal?: AbortSignal;
}

/**
 * What the era-independent tests do with a client, the same for SDK v1 and v2 (whose method
 * names and result shapes agree; only `callTool`'s optional arguments differ). Results are typed
 * with the v1 SDK's types: the JSON is the same.
 */
export interface EraClient {
  /** The `clientInfo.name` it sends: the audit trail tells the clients apart by it. */
  readonly name: string;
  readonly tap: WireTap;
  /** The revision the connection speaks (the 2025 handshake's, or the one `server/discover` settled). */
  protocolVersion(): string | undefined;
  /** The `Mcp-Session-Id` the host issued (2025 stateful only). */
  sessionId(): string | undefined;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  readResource(uri: string): Promise<ReadResourceResult>;
  close(): Promise<void>;
}

/** A kind of client the tests run against the host, and the revision it must end up speaking. */
export interface EraClientCase {
  title: string;
  /** The revision the connection must speak once connected. */
  expected: ProtocolVersion;
  connect(url: string, name: string, options?: ConnectOptions): Promise<EraClient>;
}

function v1Client(name: string, { client, transport, tap }: ConnectedV1): EraClient {
  return {
    name,
    tap,
    protocolVersion: () => transport.protocolVersion,
    sessionId: () => transport.sessionId,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (tool, args, options) =>
      (await client.callTool({ name: tool, arguments: args }, undefined, options)) as CallToolResult,
    getPrompt: (prompt, args) => client.getPrompt({ name: prompt, arguments: args }),
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: (uri) => client.readResource({ uri }),
    close: () => client.close(),
  };
}

function v2Client(name: string, { client, transport, tap }: ConnectedV2): EraClient {
  // The v2 SDK's own result types describe the same JSON; the tests read them through v1's.
  const same = <T>(value: unknown) => value as T;
  return {
    name,
    tap,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    sessionId: () => transport.sessionId,
    listTools: async () => same<Tool[]>((await client.listTools()).tools),
    callTool: async (tool, args, options) =>
      same<CallToolResult>(await client.callTool({ name: tool, arguments: args }, options)),
    getPrompt: async (prompt, args) => same<GetPromptResult>(await client.getPrompt({ name: prompt, arguments: args })),
    listResources: async () => same<Resource[]>((await client.listResources()).resources),
    listResourceTemplates: async () =>
      same<ResourceTemplate[]>((await client.listResourceTemplates()).resourceTemplates),
    readResource: async (uri) => same<ReadResourceResult>(await client.readResource({ uri })),
    close: () => client.close(),
  };
}

/** The clients every era test runs: the 2025 client in the field, and the v2 client in both of its 2026 modes. */
export const ERA_CLIENTS: EraClientCase[] = [
  {
    title: 'SDK v1 Client (2025-11-25)',
    expected: LEGACY,
    connect: async (url, name, options) => v1Client(name, await connectSdkV1(url, name, options)),
  },
  {
    title: 'SDK v2 Client, versionNegotiation auto',
    expected: MODERN,
    connect: async (url, name, options) => v2Client(name, await connectSdkV2(url, name, 'auto', options)),
  },
  {
    title: `SDK v2 Client pinned to ${MODERN}`,
    expected: MODERN,
    connect: async (url, name, options) => v2Client(name, await connectSdkV2(url, name, { pin: MODERN }, options)),
  },
];
