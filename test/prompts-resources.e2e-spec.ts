import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ARTICLES } from './fixtures/fixture.content';
import { connect, type Connected, type TransportName } from './support/connect';
import { waitFor } from './support/wait-for';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as McpError,
  );

describe.each<TransportName>(['http', 'stdio'])('prompts, resources and completion over %s', (transport) => {
  let connected: Connected;
  beforeAll(async () => (connected = await connect(transport)));
  afterAll(() => connected.close());

  it('lists prompts with their arguments', async () => {
    const { prompts } = await connected.client.listPrompts();
    const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
    expect(byName.get('greeting')).toEqual({
      name: 'greeting',
      description: 'Greets someone',
      arguments: [
        { name: 'name', description: 'Who to greet', required: true },
        { name: 'mood', description: 'How' },
      ],
    });
    expect(byName.get('summary')!.arguments).toEqual([
      { name: 'topic', required: true },
      { name: 'style', required: false },
    ]);
    expect(byName.get('translate')!.arguments).toEqual([
      { name: 'text', required: true },
      { name: 'language', required: true },
    ]);
  });

  it('gets prompts from explicit, DTO and zod arguments', async () => {
    expect(await connected.client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } })).toEqual({
      description: 'Greets someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }],
    });
    expect((await connected.client.getPrompt({ name: 'summary', arguments: { topic: 'VPN' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarise VPN (short).' } },
      { role: 'assistant', content: { type: 'text', text: 'Sure, here is a summary:' } },
    ]);
    expect(
      await connected.client.getPrompt({ name: 'translate', arguments: { text: 'hello', language: 'fr' } }),
    ).toEqual({
      description: 'Translation request',
      messages: [{ role: 'user', content: { type: 'text', text: 'Translate "hello" to fr.' } }],
    });
  });

  it('answers bad prompt requests with -32602 naming the problem', async () => {
    expect(await failure(connected.client.getPrompt({ name: 'nope' }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown prompt: nope'),
    });
    expect(
      await failure(connected.client.getPrompt({ name: 'greeting', arguments: { name: 'Ada', role: 'admin' } })),
    ).toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'prompts/get "greeting": "role" is not an argument of this prompt; it takes "name", "mood"',
      ),
    });
    expect(await failure(connected.client.getPrompt({ name: 'greeting', arguments: { mood: 'warm' } }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('missing required argument "name"'),
    });
    expect(
      await failure(
        connected.client.getPrompt({ name: 'summary', arguments: { topic: 'x'.repeat(40), style: 'epic' } }),
      ),
    ).toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /invalid arguments: topic: topic must be shorter than or equal to 30 characters; style: style must be one of/,
      ),
    });
    expect(
      await failure(connected.client.getPrompt({ name: 'translate', arguments: { text: 'hi', language: 'xx' } })),
    ).toMatchObject({ code: -32602 });
  });

  it('lists resources and templates', async () => {
    expect((await connected.client.listResources()).resources).toEqual([
      {
        uri: 'kb://policies/sla',
        name: 'sla',
        title: 'Service levels',
        description: 'Our SLA',
        mimeType: 'text/markdown',
      },
      { uri: 'kb://logo.png', name: 'logo', mimeType: 'image/png' },
    ]);
    expect((await connected.client.listResourceTemplates()).resourceTemplates).toEqual([
      {
        uriTemplate: 'kb://articles/{slug}',
        name: 'article',
        description: 'A knowledge-base article',
        mimeType: 'text/markdown',
      },
    ]);
  });

  it('reads text, binary and templated resources', async () => {
    expect(await connected.client.readResource({ uri: 'kb://policies/sla' })).toEqual({
      contents: [{ uri: 'kb://policies/sla', mimeType: 'text/markdown', text: '# SLA\nUrgent tickets: 1 hour.' }],
    });
    expect((await connected.client.readResource({ uri: 'kb://logo.png' })).contents).toEqual([
      { uri: 'kb://logo.png', mimeType: 'image/png', blob: 'iVBORw==' },
    ]);
    expect((await connected.client.readResource({ uri: 'kb://articles/password-reset' })).contents[0]).toMatchObject({
      text: expect.stringContaining('self-service'),
    });
  });

  it('answers unknown resources with -32002 and the URI in data', async () => {
    for (const uri of ['kb://nothing/here', 'kb://articles/no-such-article']) {
      expect(await failure(connected.client.readResource({ uri }))).toMatchObject({ code: -32002, data: { uri } });
    }
    expect(await failure(connected.client.subscribeResource({ uri: 'kb://nothing' }))).toMatchObject({ code: -32002 });
  });

  it('rejects cursors it did not issue on every list with -32602', async () => {
    const bogus = Buffer.from('tools:1').toString('base64url'); // a tools cursor is no prompts cursor
    expect(await failure(connected.client.listPrompts({ cursor: bogus }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid cursor for prompts'),
    });
    expect(await failure(connected.client.listResources({ cursor: 'garbage' }))).toMatchObject({ code: -32602 });
    expect(await failure(connected.client.listResourceTemplates({ cursor: 'garbage' }))).toMatchObject({
      code: -32602,
    });
  });

  it('completes prompt arguments and template variables', async () => {
    expect(
      (
        await connected.client.complete({
          ref: { type: 'ref/prompt', name: 'greeting' },
          argument: { name: 'name', value: 'al' },
        })
      ).completion,
    ).toEqual({
      values: ['alice', 'alex'],
      total: 2,
      hasMore: false,
    });
    const slugs = await connected.client.complete({
      ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
      argument: { name: 'slug', value: 'vpn' },
    });
    expect(slugs.completion.values).toEqual(['vpn-setup']);
    expect(
      await failure(
        connected.client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
      ),
    ).toMatchObject({ code: -32602 });
  });

  it('notifies subscribers when a resource changes, and stops after unsubscribe', async () => {
    const updates: string[] = [];
    connected.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (notification) => void updates.push(notification.params.uri),
    );
    await connected.client.subscribeResource({ uri: 'kb://articles/vpn-setup' });
    await connected.client.callTool({ name: 'editArticle', arguments: { slug: 'vpn-setup', text: '# VPN\nv2' } });
    await waitFor(() => updates.length === 1);
    expect(updates).toEqual(['kb://articles/vpn-setup']);
    await connected.client.unsubscribeResource({ uri: 'kb://articles/vpn-setup' });
    await connected.client.callTool({ name: 'editArticle', arguments: { slug: 'vpn-setup', text: '# VPN\nv3' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(updates).toHaveLength(1);
    expect(ARTICLES.get('vpn-setup')).toBe('# VPN\nv3');
  });
});

describe.each<TransportName>(['http', 'stdio'])('subscription limits over %s', (transport) => {
  it('caps subscriptions per session and the length of a URI', async () => {
    const connected = await connect(transport, {}, { maxSubscriptionsPerSession: 3 });
    try {
      const { client } = connected;
      for (const slug of ['vpn-setup', 'password-reset', 'a-1'])
        await client.subscribeResource({ uri: `kb://articles/${slug}` });
      await client.subscribeResource({ uri: 'kb://articles/vpn-setup' }); // already subscribed: no new one
      expect(await failure(client.subscribeResource({ uri: 'kb://articles/a-2' }))).toMatchObject({
        code: -32602,
        message: expect.stringContaining(
          'Too many subscriptions: this session already has 3 (maxSubscriptionsPerSession)',
        ),
      });
      await client.unsubscribeResource({ uri: 'kb://articles/a-1' });
      await client.subscribeResource({ uri: 'kb://articles/a-2' });
      // A 99 KB URI that a template would match is refused before anything is kept.
      const long = `kb://articles/${'x'.repeat(99_000)}`;
      for (const request of [client.subscribeResource({ uri: long }), client.readResource({ uri: long })]) {
        expect(await failure(request)).toMatchObject({
          code: -32602,
          message: expect.stringContaining('params.uri is 99014 characters long; URIs of at most 2048 are accepted'),
        });
      }
    } finally {
      await connected.close();
    }
  });
});

describe.each<TransportName>(['http', 'stdio'])('requests to the client over %s', (transport) => {
  it('elicits, samples and lists roots when the client supports them', async () => {
    const connected = await connect(transport, {
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
    });
    try {
      const { client } = connected;
      client.setRequestHandler(ElicitRequestSchema, async (request) => ({
        action: 'accept',
        content: { ok: request.params.message === 'Proceed?' },
      }));
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: 'hi!' },
      }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: 'file:///srv/project', name: 'project' }],
      }));
      expect((await client.callTool({ name: 'askUser' })).structuredContent).toEqual({
        action: 'accept',
        content: { ok: true },
      });
      expect((await client.callTool({ name: 'askModel' })).structuredContent).toEqual({
        model: 'test-model',
        content: { type: 'text', text: 'hi!' },
      });
      expect((await client.callTool({ name: 'listRoots' })).structuredContent).toEqual({
        roots: [{ uri: 'file:///srv/project', name: 'project' }],
      });
    } finally {
      await connected.close();
    }
  });

  it('fails clearly when the client lacks a capability, refuses or does not answer', async () => {
    const connected = await connect(transport, { capabilities: { sampling: {} } });
    try {
      const { client } = connected;
      const noElicitation = (await client.callTool({ name: 'askUser' })) as CallToolResult;
      expect(noElicitation).toEqual({
        content: [
          {
            type: 'text',
            text: "The client does not support elicitation ('elicitation'): it did not declare that capability in initialize.",
          },
        ],
        isError: true,
      });
      client.setRequestHandler(CreateMessageRequestSchema, async () => {
        throw new McpError(-32603, 'user rejected sampling');
      });
      const urlMode = (await client.callTool({ name: 'openConsent' })) as CallToolResult;
      expect((urlMode.content[0] as { text: string }).text).toBe(
        "The client does not support elicitation in URL mode ('elicitation.url'): it did not declare that capability in initialize.",
      );
      const withTools = (await client.callTool({ name: 'sampleWithTools' })) as CallToolResult;
      expect((withTools.content[0] as { text: string }).text).toContain("sampling with tools ('sampling.tools')");
      const refused = (await client.callTool({ name: 'askModel' })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect((refused.content[0] as { text: string }).text).toContain(
        'The client refused sampling/createMessage: MCP error -32603: user rejected sampling',
      );
    } finally {
      await connected.close();
    }
  });

  it('times out a request the client never answers', async () => {
    const connected = await connect(transport, { capabilities: { elicitation: {} } });
    try {
      connected.client.setRequestHandler(ElicitRequestSchema, () => new Promise(() => undefined));
      const result = (await connected.client.callTool({ name: 'askUser' })) as CallToolResult;
      expect(result).toEqual({
        content: [{ type: 'text', text: 'The client did not answer elicitation/create within 2000 ms.' }],
        isError: true,
      });
    } finally {
      await connected.close();
    }
  });
});

describe('requests to the client without a session', () => {
  it('explain that stateless mode cannot carry them', async () => {
    const connected = await connect('http', { capabilities: { elicitation: {} } }, { mode: 'stateless' });
    try {
      const result = (await connected.client.callTool({ name: 'askUser' })) as CallToolResult;
      expect(result).toEqual({
        content: [{ type: 'text', text: 'elicitation/create needs a session: serve the host in stateful mode.' }],
        isError: true,
      });
    } finally {
      await connected.close();
    }
  });
});
