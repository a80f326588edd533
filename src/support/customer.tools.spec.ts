import { McpToolError, type McpCallContext } from 'nest-mcp-host';
import { CustomerTools } from './customer.tools';
import { InMemoryCustomersStore } from './in-memory-customers.store';
import { InMemoryTicketsStore } from './in-memory-tickets.store';
import { CustomerOutput } from './support.schemas';
import type { TicketsStore } from './tickets.store';

/** A call's context as `caller` makes it (a reader, unless said). */
const as = (caller = { id: 'reader', scopes: ['tickets:read'], roles: [] as string[], claims: {} }) =>
  ({ caller }) as unknown as McpCallContext;

describe('CustomerTools', () => {
  let tools: CustomerTools;
  let tickets: TicketsStore;
  beforeEach(() => {
    tickets = new InMemoryTicketsStore();
    tools = new CustomerTools(new InMemoryCustomersStore(), tickets);
  });

  describe('search_customers', () => {
    it('returns a short summary of each match and the count', async () => {
      expect(await tools.search({ query: 'contoso' }, as())).toEqual({
        customers: [{ id: 'C-1002', name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' }],
        count: 1,
      });
    });

    it('lists up to ten customers by default, fewer when asked', async () => {
      expect((await tools.search({}, as())).count).toBe(8);
      expect(
        (await tools.search({ tier: 'premium', limit: 2 }, as())).customers.map((customer) => customer.id),
      ).toEqual(['C-1002', 'C-1004']);
    });

    it('matches the e-mail address only for a caller cleared for personal data: no one else learns it from what matches', async () => {
      const ids = async (query: string, caller?: Parameters<typeof as>[0]) =>
        (await tools.search({ query }, as(caller))).customers.map((customer) => customer.id);
      expect(await ids('bruno@')).toEqual([]);
      expect(await ids('contoso.example')).toEqual([]);
      expect(await ids('bruno')).toEqual(['C-1002']); // the name
      const cleared = { id: 'lead', scopes: ['tickets:read', 'customers:pii'], roles: [], claims: {} };
      expect(await ids('bruno@', cleared)).toEqual(['C-1002']);
      expect(await ids('contoso.example', { ...cleared, scopes: [], roles: ['admin'] })).toEqual(['C-1002']);
    });
  });

  describe('get_customer', () => {
    it('returns the customer with the number of open tickets, as its output schema promises', async () => {
      const customer = await tools.get({ customerId: 'C-1002' });
      expect(customer).toMatchObject({ id: 'C-1002', email: 'bruno@contoso.example', openTickets: 2 });
      expect(CustomerOutput.safeParse(customer).success).toBe(true);
    });

    it('counts a ticket opened since', async () => {
      await tickets.create({
        customerId: 'C-1002',
        subject: 'New issue',
        description: 'Something else broke.',
        priority: 'low',
      });
      expect((await tools.get({ customerId: 'C-1002' })).openTickets).toBe(3);
    });

    it('tells the model how to find the right id when the customer is unknown', async () => {
      await expect(tools.get({ customerId: 'C-9999' })).rejects.toThrow(
        new McpToolError('No customer C-9999. Use search_customers to find the right id.'),
      );
    });
  });
});
