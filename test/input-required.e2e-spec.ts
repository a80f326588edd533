import { createServer, request as httpRequest, type Server } from 'node:http';
import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { z } from 'zod';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpArgs, McpContext, McpPrompt, McpResourceTemplate, McpTool, type McpCallContext } from '#libs/core';
import { McpModule, type McpModuleOptions } from '#libs/hosting';
import { McpApprovals } from '#libs/operations';
import { startDeskHost } from './support/desk-host';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';

const VERSION = '2026-07-28';
const SECRET = 'the-secret-every-replica-shares-0123456789';
const ALL = { elicitation: {}, sampling: {}, roots: {} };

interface Answer {
  status: number;
  result?: Record<string, unknown> & {
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  };
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/**
 * One 2026-07-28 request as a client sends it: the `_meta` envelope in the body, the protocol
 * version, method and name in the headers, a fresh id every time (a retry is a new request).
 */
async function send(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ALL,
): Promise<Answer> {
  const name = (params.name ?? params.uri) as string | undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const text = await response.text();
  // A call that sent notifications answers on an SSE stream: its last data line is the response.
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .pop()!
    : text;
  return { status: response.status, ...(JSON.parse(json) as { result?: Answer['result']; error?: Answer['error'] }) };
}

/** The retry of a call with the client's answers and the state it was given. */
const retry = (params: Record<string, unknown>, asked: Answer, inputResponses: Record<string, unknown>) => ({
  ...params,
  inputResponses,
  requestState: asked.result!.requestState,
});

const textOf = (answer: Answer) => ((answer.result as unknown as CallToolResult).content[0] as { text: string }).text;

describe('multi round-trip requests of 2026-07-28 clients: confirmation of close_ticket on the support desk', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startDeskHost());
  });
  afterAll(() => app.close());

  const statusOf = async (ticketId: string) =>
    (
      JSON.parse(textOf(await send(url, 'tools/call', { name: 'get_ticket', arguments: { ticketId } }))) as {
        status: string;
      }
    ).status;

  async function openTicket(): Promise<string> {
    const created = await send(url, 'tools/call', {
      name: 'create_ticket',
      arguments: {
        customerId: 'C-1001',
        subject: 'Printer jam',
        description: 'Tray 2 is stuck again',
        priority: 'low',
      },
    });
    return (JSON.parse(textOf(created)) as { id: string }).id;
  }

  it('asks the user through an input request, and runs the confirmed retry once', async () => {
    const ticketId = await openTicket();
    const params = { name: 'close_ticket', arguments: { ticketId, resolution: 'Cleared the tray' } };
    const asked = await send(url, 'tools/call', params);
    expect(asked.status).toBe(200);
    expect(asked.result).toEqual({
      resultType: 'input_required',
      inputRequests: {
        confirmation: {
          method: 'elicitation/create',
          params: {
            message: `Allow "Close a ticket" to run with ${JSON.stringify(params.arguments)}?`,
            requestedSchema: {
              type: 'object',
              properties: { confirm: expect.objectContaining({ type: 'boolean', default: false }) },
              required: ['confirm'],
            },
          },
        },
      },
      requestState: expect.any(String),
    });
    // Nothing ran: the ticket waits for the user's answer.
    expect(await statusOf(ticketId)).toBe('open');
    const closed = await send(
      url,
      'tools/call',
      retry(params, asked, { confirmation: { action: 'accept', content: { confirm: true } } }),
    );
    expect(closed.result?.resultType).toBe('complete');
    expect(closed.result?.isError).toBeUndefined();
    expect(JSON.parse(textOf(closed))).toEqual({ id: ticketId, status: 'closed', alreadyClosed: false });
  });

  it('does not run when the user declines, and refuses a state sent with other arguments', async () => {
    const ticketId = await openTicket();
    const params = { name: 'close_ticket', arguments: { ticketId, resolution: 'Cleared the tray' } };
    const asked = await send(url, 'tools/call', params);
    const declined = await send(url, 'tools/call', retry(params, asked, { confirmation: { action: 'decline' } }));
    expect(declined.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(textOf(declined)).toBe(
      'The user did not confirm "close_ticket" (decline); it was not run. Do not retry without asking the user.',
    );
    const other = { name: 'close_ticket', arguments: { ticketId: 'T-1001', resolution: 'Cleared the tray' } };
    const reused = await send(
      url,
      'tools/call',
      retry(other, asked, { confirmation: { action: 'accept', content: { confirm: true } } }),
    );
    expect(reused.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params: "requestState" was issued for another request/),
    });
    // An acceptance the host never asked for (no requestState) approves nothing: the user is asked.
    const madeUp = await send(url, 'tools/call', {
      ...params,
      inputResponses: { confirmation: { action: 'accept', content: { confirm: true } } },
    });
    expect(madeUp.result?.resultType).toBe('input_required');
    expect(await statusOf(ticketId)).toBe('open');
  });

  it('sends a client with URL-mode elicitation only to the approval page through an input request', async () => {
    const ticketId = await openTicket();
    const params = { name: 'close_ticket', arguments: { ticketId, resolution: 'Swapped the printer' } };
    const urlOnly = { elicitation: { url: {} } };
    const asked = await send(url, 'tools/call', params, urlOnly);
    const request = asked.result?.inputRequests?.confirmation;
    expect(request).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'url',
        url: expect.stringMatching(/\/admin#approval=[A-Za-z0-9_-]+$/),
        message: expect.stringMatching(/^"Close a ticket" needs your approval before it runs\./),
      },
    });
    expect(await statusOf(ticketId)).toBe('open');
    // The user approves on the page the link opens.
    const id = new URL(request!.params.url as string).hash.slice('#approval='.length);
    await app.get(McpApprovals).decide({ id: 'ops', scopes: [], roles: ['approver'], claims: {} }, id, true, 'fine');
    const ran = await send(url, 'tools/call', retry(params, asked, { confirmation: { action: 'accept' } }), urlOnly);
    expect(JSON.parse(textOf(ran))).toEqual({ id: ticketId, status: 'closed', alreadyClosed: false });
  });

  it('holds the call of a client that cannot elicit for an approver; the retry runs once approved, once', async () => {
    const ticketId = await openTicket();
    const params = { name: 'close_ticket', arguments: { ticketId, resolution: 'Replaced the tray' } };
    const noForms = { sampling: {} };
    const first = await send(url, 'tools/call', params, noForms);
    expect(first.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(textOf(first)).toMatch(/^"close_ticket" needs a person's approval before it runs, and it was not run\./);
    const approvals = app.get(McpApprovals);
    const ops = { id: 'ops', scopes: [], roles: ['approver'], claims: {} };
    const pending = (await approvals.list(ops, 'pending')).approvals.find(
      (approval) => approval.tool === 'close_ticket',
    )!;
    expect(pending.arguments).toEqual(params.arguments);
    await approvals.decide(ops, pending.id, true, 'the customer agreed');
    const ran = await send(url, 'tools/call', params, noForms);
    expect(JSON.parse(textOf(ran))).toEqual({ id: ticketId, status: 'closed', alreadyClosed: false });
    const again = await send(url, 'tools/call', params, noForms);
    expect(textOf(again)).toMatch(/needs a person's approval/);
  });
});

/** A tool, a prompt and a resource that ask their client, as a 2025 handler does. */
@Injectable()
class AskingFixtures {
  readonly booked: string[] = [];

  @McpTool({
    description: 'Books a trip once the traveller and the model have answered',
    input: z.object({ city: z.string() }),
  })
  async bookTrip(@McpArgs('city') city: string, @McpContext() ctx: McpCallContext) {
    const [traveller, advice] = await Promise.all([
      ctx.elicit(
        {
          message: 'Who travels?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'traveller' },
      ),
      ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: `Best month for ${city}?` } }],
        maxTokens: 20,
      }),
    ]);
    const roots = await ctx.roots();
    // Acts only after every answer is in: an earlier run stops at its first unanswered question.
    this.booked.push(city);
    const month = (advice.content as { text: string }).text;
    return `${String(traveller.content?.name)} goes to ${city} in ${month}; files in ${roots.map((root) => root.uri).join(', ')}`;
  }

  @McpPrompt({ name: 'briefing', description: 'A briefing on a topic the user picks' })
  async briefing(@McpContext() ctx: McpCallContext) {
    const { content } = await ctx.elicit({
      message: 'Which topic?',
      requestedSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
    });
    return `Brief me on ${String(content?.topic)}`;
  }

  @McpResourceTemplate({ uriTemplate: 'notes://{topic}', name: 'notes', mimeType: 'text/plain' })
  async notes(@McpArgs('topic') topic: string, @McpContext() ctx: McpCallContext) {
    const roots = await ctx.roots({ key: 'workspace' });
    return `Notes on ${topic} from ${roots[0]?.uri ?? 'nowhere'}`;
  }
}

@Module({})
class AskingModule {
  static register(options: Partial<McpModuleOptions>): DynamicModule {
    return {
      module: AskingModule,
      imports: [McpModule.forRoot({ name: 'asking', version: '1.0.0', ...options })],
      providers: [AskingFixtures],
    };
  }
}

const NAME = { action: 'accept', content: { name: 'Ada' } };
const MAY = { role: 'assistant', content: { type: 'text', text: 'May' }, model: 'test-model', stopReason: 'endTurn' };
const ROOTS = { roots: [{ uri: 'file:///trips', name: 'trips' }] };

describe('multi round-trip requests of 2026-07-28 clients: tools, prompts and resources', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startFixtureApp({}, (options) => AskingModule.register(options)));
  });
  afterAll(() => app.close());

  it('gathers concurrent asks into one round, asks the next question in the next, and acts once', async () => {
    const params = { name: 'bookTrip', arguments: { city: 'Lisbon' } };
    const first = await send(url, 'tools/call', params);
    expect(first.result?.inputRequests).toEqual({
      traveller: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Who travels?' }) },
      '2': { method: 'sampling/createMessage', params: expect.objectContaining({ maxTokens: 20 }) },
    });
    const second = await send(url, 'tools/call', retry(params, first, { traveller: NAME, '2': MAY }));
    expect(second.result?.inputRequests).toEqual({ '3': { method: 'roots/list', params: {} } });
    expect(app.get(AskingFixtures).booked).toEqual([]);
    const done = await send(url, 'tools/call', retry(params, second, { '3': ROOTS }));
    expect(done.result?.resultType).toBe('complete');
    expect(textOf(done)).toBe('Ada goes to Lisbon in May; files in file:///trips');
    expect(app.get(AskingFixtures).booked).toEqual(['Lisbon']);
  });

  it('serves prompts/get and resources/read the same way', async () => {
    const prompt = await send(url, 'prompts/get', { name: 'briefing' });
    expect(Object.keys(prompt.result?.inputRequests ?? {})).toEqual(['1']);
    const briefed = await send(
      url,
      'prompts/get',
      retry({ name: 'briefing' }, prompt, { '1': { action: 'accept', content: { topic: 'ferries' } } }),
    );
    expect(briefed.result).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Brief me on ferries' } }],
    });
    const read = await send(url, 'resources/read', { uri: 'notes://ferries' });
    expect(read.result?.inputRequests).toEqual({ workspace: { method: 'roots/list', params: {} } });
    const notes = await send(url, 'resources/read', retry({ uri: 'notes://ferries' }, read, { workspace: ROOTS }));
    expect(notes.result).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: 'notes://ferries', text: 'Notes on ferries from file:///trips' }],
    });
  });

  it('answers -32021 with HTTP 400 when the handler asks for what the client did not declare', async () => {
    const refused = await send(
      url,
      'tools/call',
      { name: 'bookTrip', arguments: { city: 'Oslo' } },
      { elicitation: {} },
    );
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
  });

  it('refuses a tampered requestState and an answer that is not a result', async () => {
    const params = { name: 'bookTrip', arguments: { city: 'Rome' } };
    const first = await send(url, 'tools/call', params);
    const tampered = await send(url, 'tools/call', {
      ...retry(params, first, { traveller: NAME, '2': MAY }),
      requestState: `${first.result!.requestState}x`,
    });
    expect(tampered.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('failed its integrity check'),
    });
    const wrong = await send(url, 'tools/call', retry(params, first, { traveller: 'Ada', '2': MAY }));
    expect(wrong.error).toEqual({
      code: -32602,
      message: `Invalid params: "inputResponses.traveller" must be an object (the client's result of elicitation/create)`,
    });
    expect(app.get(AskingFixtures).booked).not.toContain('Rome');
  });

  it('serves the same handler to a 2025-11-25 session, which gets the requests on its session', async () => {
    const client = await connectHttpClient(url, {}, { capabilities: { elicitation: {} } });
    try {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { topic: 'trains' } }));
      expect(await client.getPrompt({ name: 'briefing' })).toMatchObject({
        messages: [{ role: 'user', content: { type: 'text', text: 'Brief me on trains' } }],
      });
    } finally {
      await client.close();
    }
  });
});

/** Forwards each request to the next upstream in turn, as a load balancer without affinity does. */
function roundRobin(upstreams: string[]): Promise<{ url: string; server: Server; served: number[] }> {
  const served = upstreams.map(() => 0);
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    served[index]++;
    const target = new URL(incoming.url ?? '/', upstreams[index]);
    const forward = httpRequest(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/mcp`, server, served });
    }),
  );
}

describe.each([
  ['share a requestState secret', { requestState: { secret: SECRET } }, { requestState: { secret: SECRET } }],
  ['each seal with a key of their own', {}, {}],
] as const)('two replicas behind a round-robin balancer that %s', (_label, one, other) => {
  let apps: INestApplication[];
  let balancer: Awaited<ReturnType<typeof roundRobin>>;

  beforeAll(async () => {
    const replicas = await Promise.all(
      [one, other].map((options) =>
        startFixtureApp(options as Partial<McpModuleOptions>, (o) => AskingModule.register(o)),
      ),
    );
    apps = replicas.map((replica) => replica.app);
    balancer = await roundRobin(replicas.map((replica) => replica.url));
  });
  afterAll(async () => {
    await new Promise((resolve) => balancer.server.close(resolve));
    await Promise.all(apps.map((app) => app.close()));
  });

  it('serves the retry on the other replica only when they share the secret', async () => {
    const params = { uri: 'notes://replicas' };
    const first = await send(balancer.url, 'resources/read', params);
    expect(first.result?.resultType).toBe('input_required');
    const second = await send(balancer.url, 'resources/read', retry(params, first, { workspace: ROOTS }));
    // The balancer sent the round to one replica and the retry to the other.
    expect(balancer.served).toEqual([1, 1]);
    if ('requestState' in one)
      expect(second.result).toMatchObject({ contents: [{ text: 'Notes on replicas from file:///trips' }] });
    else
      expect(second.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Invalid params: "requestState" failed its integrity check/),
      });
  });
});
