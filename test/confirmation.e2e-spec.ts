import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContentFixtures } from './fixtures/fixture.content';
import { connect, type TransportName } from './support/connect';

const TOKEN = 'nest-mcp-host/confirmationToken';

describe.each<TransportName>(['http', 'stdio'])('confirmation of destructive tools over %s', (transport) => {
  it('asks through elicitation and runs only when the user accepts', async () => {
    const connected = await connect(transport, { capabilities: { elicitation: {} } }, { confirmDestructive: true });
    try {
      const questions: string[] = [];
      let accept = true;
      connected.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return accept ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      });
      expect(await connected.client.callTool({ name: 'deleteArchive', arguments: { archive: 'q1' } })).toEqual({ content: [{ type: 'text', text: 'deleted q1' }] });
      accept = false;
      const declined = (await connected.client.callTool({ name: 'deleteArchive', arguments: { archive: 'q2' } })) as CallToolResult;
      expect(declined).toEqual({
        content: [{ type: 'text', text: 'The user did not confirm "deleteArchive" (decline); it was not run. Do not retry without asking the user.' }],
        isError: true,
      });
      expect(questions).toEqual(['Allow "deleteArchive" to run with {"archive":"q1"}?', 'Allow "deleteArchive" to run with {"archive":"q2"}?']);
      expect(connected.app.get(ContentFixtures).deleted).toEqual(['q1']);
    } finally {
      await connected.close();
    }
  });

  it('hands a client without elicitation a single-use token for exactly that call', async () => {
    const connected = await connect(transport, {}, { confirmDestructive: true });
    try {
      const { client } = connected;
      const first = (await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' } })) as CallToolResult;
      expect(first.isError).toBe(true);
      const token = (first._meta as Record<string, string>)[TOKEN];
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect((first.content[0] as { text: string }).text).toContain(`_meta {"${TOKEN}": "${token}"} within 5 minutes`);

      const otherArgs = (await client.callTool({ name: 'deleteArchive', arguments: { archive: 'everything' }, _meta: { [TOKEN]: token } })) as CallToolResult;
      expect(otherArgs.isError).toBe(true); // a token confirms one call only, and is used up by trying
      const retry = (await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' }, _meta: { [TOKEN]: token } })) as CallToolResult;
      expect(retry.isError).toBe(true);

      const fresh = (await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' } })) as CallToolResult;
      const freshToken = (fresh._meta as Record<string, string>)[TOKEN];
      expect(await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' }, _meta: { [TOKEN]: freshToken } })).toEqual({
        content: [{ type: 'text', text: 'deleted q3' }],
      });
      expect(connected.app.get(ContentFixtures).deleted).toEqual(['q3']);
    } finally {
      await connected.close();
    }
  });

  it('runs destructive tools without asking when the policy is off', async () => {
    const connected = await connect(transport);
    try {
      expect(await connected.client.callTool({ name: 'deleteArchive', arguments: { archive: 'q4' } })).toEqual({ content: [{ type: 'text', text: 'deleted q4' }] });
    } finally {
      await connected.close();
    }
  });
});
