import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpCatalog } from '#libs/catalog';
import { McpStartupError } from '#libs/core';
import { connect, type Connected, type TransportName } from './support/connect';
import { waitFor } from './support/wait-for';

describe.each<TransportName>(['http', 'stdio'])('the catalog at run time over %s', (transport) => {
  let connected: Connected;
  let catalog: McpCatalog;
  const changes: string[] = [];

  beforeAll(async () => {
    connected = await connect(transport);
    catalog = connected.app.get(McpCatalog);
    const { client } = connected;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void changes.push('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changes.push('resources'));
    // The HTTP client opens its GET stream in the background: wait until it can receive.
    if (transport === 'http') await new Promise((resolve) => setTimeout(resolve, 200));
  });
  afterAll(() => connected.close());

  const toolNames = async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await connected.client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names;
  };

  it('adds a tool that is listed, announced and callable with validated arguments', async () => {
    changes.length = 0;
    catalog.addTool(
      {
        name: 'tenant_status',
        description: 'Status of a tenant',
        input: z.object({ tenant: z.string() }),
        annotations: { readOnlyHint: true },
      },
      ({ tenant }: { tenant: string }, context) => `tenant ${tenant} is up (${context.transport})`,
    );
    await waitFor(() => changes.includes('tools'));
    expect(await toolNames()).toContain('tenant_status');
    expect(await connected.client.callTool({ name: 'tenant_status', arguments: { tenant: 'acme' } })).toEqual({
      content: [{ type: 'text', text: `tenant acme is up (${transport})` }],
    });
    const bad = await connected.client.callTool({ name: 'tenant_status', arguments: {} });
    expect(bad).toMatchObject({ isError: true });
  });

  it('disables, enables and removes it', async () => {
    catalog.disable('tool', 'tenant_status');
    expect(await toolNames()).not.toContain('tenant_status');
    await expect(
      connected.client.callTool({ name: 'tenant_status', arguments: { tenant: 'x' } }),
    ).rejects.toMatchObject({ code: -32602 });
    catalog.enable('tool', 'tenant_status');
    expect(await toolNames()).toContain('tenant_status');
    expect(catalog.remove('tool', 'tenant_status')).toBe(true);
    expect(await toolNames()).not.toContain('tenant_status');
    expect(catalog.remove('tool', 'tenant_status')).toBe(false);
  });

  it('adds prompts and resources the same way', async () => {
    changes.length = 0;
    catalog.addPrompt(
      { name: 'runtime_prompt', description: 'Added at run time', args: [{ name: 'topic', required: true }] },
      ({ topic }: { topic: string }) => `Talk about ${topic}`,
    );
    catalog.addResource({ uri: 'runtime://note', name: 'note', mimeType: 'text/plain' }, () => 'a note');
    catalog.addResourceTemplate(
      { uriTemplate: 'runtime://notes/{id}', name: 'notes' },
      ({ id }: { id: string }) => `note ${id}`,
    );
    await waitFor(() => changes.includes('prompts') && changes.includes('resources'));
    expect(
      (await connected.client.getPrompt({ name: 'runtime_prompt', arguments: { topic: 'MCP' } })).messages[0].content,
    ).toEqual({ type: 'text', text: 'Talk about MCP' });
    expect((await connected.client.readResource({ uri: 'runtime://note' })).contents).toEqual([
      { uri: 'runtime://note', mimeType: 'text/plain', text: 'a note' },
    ]);
    expect((await connected.client.readResource({ uri: 'runtime://notes/7' })).contents[0]).toMatchObject({
      text: 'note 7',
    });
    catalog.disable('resourceTemplate', 'runtime://notes/{id}');
    await expect(connected.client.readResource({ uri: 'runtime://notes/7' })).rejects.toMatchObject({ code: -32002 });
    catalog.remove('prompt', 'runtime_prompt');
    catalog.remove('resource', 'runtime://note');
    catalog.remove('resourceTemplate', 'runtime://notes/{id}');
  });

  it('refuses invalid or duplicate entries with the same diagnostics as decorators', () => {
    expect(() => catalog.addTool({ name: 'add', description: 'dup' }, () => 'x')).toThrow(McpStartupError);
    expect(() => catalog.addTool({ name: 'bad name', description: '' }, () => 'x')).toThrow(
      /Cannot add to the MCP catalog: 1 problem\(s\) found\n.*the tool has no description/,
    );
    expect(() =>
      catalog.addResourceTemplate({ uriTemplate: 'kb://articles/{other}', name: 'clash' }, () => 'x'),
    ).toThrow(/matches the same URIs as "kb:\/\/articles\/\{slug\}"/);
  });
});
