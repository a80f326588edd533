import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DtoNamesFixtureModule } from './fixtures/dto-names/dto-names.module';
import { connect, type TransportName } from './support/connect';

describe.each<TransportName>(['http', 'stdio'])('DTO classes of the same name over %s', (transport) => {
  it('publish a schema each in tools/list, and each tool takes its own arguments', async () => {
    const connected = await connect(transport, {}, {}, (options) => DtoNamesFixtureModule.register(options));
    try {
      const { client } = connected;
      const { tools } = await client.listTools();
      const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema;
      // Two `SearchDto`s, each nesting an `Address` of its own: the second `Address` met is keyed `Address_2`.
      expect(schemaOf('search_tickets')).toEqual({
        type: 'object',
        properties: { status: { type: 'string' }, address: { $ref: '#/$defs/Address' } },
        required: ['status'],
        $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      });
      expect(schemaOf('search_customers')).toEqual({
        type: 'object',
        properties: { email: { type: 'string' }, addresses: { type: 'array', items: { $ref: '#/$defs/Address_2' } } },
        required: ['email'],
        $defs: {
          Address_2: {
            type: 'object',
            properties: { street: { type: 'string' }, zip: { type: 'integer' } },
            required: ['street', 'zip'],
          },
        },
      });

      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const customer = { email: 'ada@example.com', addresses: [{ street: 'Main St', zip: 10115 }] };
      expect((await call('search_customers', customer)).structuredContent).toEqual({ found: true, ...customer });
      // Arguments no schema of its own declares are refused, with what it accepts (the other tool's are not).
      expect(await call('search_customers', { email: 'ada@example.com', status: 'open' })).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool "search_customers":\n- status: is not an accepted argument (accepted: email, addresses)',
          },
        ],
        isError: true,
      });
      expect(await call('search_tickets', { status: 'open', address: { street: 'Main St' } })).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool "search_tickets":\n- address.street: is not an accepted argument (accepted: city)\n- address.city: city must be a string',
          },
        ],
        isError: true,
      });
    } finally {
      await connected.close();
    }
  });
});
