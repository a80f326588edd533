import { Reflector } from '@nestjs/core';
import { MCP_TOOL_METADATA, McpToolError, type McpCallContext, type McpToolOptions } from 'nest-mcp-host';
import { CustomersStore } from './customers.store';
import { TicketOutput } from './support.schemas';
import { TicketTools } from './ticket.tools';
import { TicketsStore } from './tickets.store';

/** Just enough of a call context for the tools that log to the client. */
function fakeContext(): McpCallContext & { logged: unknown[] } {
  const logged: unknown[] = [];
  return { logged, log: { info: (data: unknown) => void logged.push(data) } } as unknown as McpCallContext & {
    logged: unknown[];
  };
}

describe('TicketTools', () => {
  let tools: TicketTools;
  let store: TicketsStore;
  beforeEach(() => {
    store = new TicketsStore();
    tools = new TicketTools(store, new CustomersStore());
  });

  it('declares honest annotations: reads are read-only, close_ticket is destructive and idempotent', () => {
    const reflector = new Reflector();
    const annotations = (method: keyof TicketTools) =>
      reflector.get<McpToolOptions>(MCP_TOOL_METADATA, TicketTools.prototype[method])?.annotations;
    expect(annotations('search')).toMatchObject({ readOnlyHint: true });
    expect(annotations('get')).toMatchObject({ readOnlyHint: true });
    expect(annotations('create')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(annotations('comment')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(annotations('close')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });

  describe('search_tickets', () => {
    it('combines the filters and returns a summary of each ticket', () => {
      expect(tools.search({ status: 'pending', assignee: 'tom.becker' })).toEqual({
        tickets: [
          {
            id: 'T-2002',
            subject: 'Invoice shows wrong VAT rate',
            status: 'pending',
            priority: 'high',
            customerId: 'C-1002',
            assignee: 'tom.becker',
          },
        ],
        count: 1,
      });
      expect(tools.search({ priority: 'urgent', customerId: 'C-1008' }).tickets.map((ticket) => ticket.id)).toEqual([
        'T-2016',
      ]);
    });

    it('returns twenty tickets by default, fewer when asked', () => {
      store.create({
        customerId: 'C-1001',
        subject: 'One more',
        description: 'The twenty-first ticket.',
        priority: 'low',
      });
      expect(tools.search({}).count).toBe(20);
      expect(tools.search({ limit: 2 }).tickets.map((ticket) => ticket.id)).toEqual(['T-2001', 'T-2002']);
    });
  });

  describe('get_ticket', () => {
    it('returns the whole ticket, as its output schema promises', () => {
      const ticket = tools.get({ ticketId: 'T-2001' });
      expect(ticket).toMatchObject({ id: 'T-2001', status: 'open', comments: [{ author: 'maria.lopez' }] });
      expect(TicketOutput.safeParse(ticket).success).toBe(true);
    });

    it('tells the model how to find the right id when the ticket is unknown', () => {
      expect(() => tools.get({ ticketId: 'T-9999' })).toThrow(
        new McpToolError('No ticket T-9999. Use search_tickets to find the right id.'),
      );
    });
  });

  describe('create_ticket', () => {
    it('opens the ticket and tells the client', () => {
      const ctx = fakeContext();
      const created = tools.create(
        {
          customerId: 'C-1003',
          subject: 'Printer jam',
          description: 'The printer jams on every page.',
          priority: 'low',
        },
        ctx,
      );
      expect(created).toEqual({ id: 'T-2021', status: 'open' });
      expect(store.find('T-2021')).toMatchObject({ customerId: 'C-1003', subject: 'Printer jam', assignee: null });
      expect(ctx.logged).toEqual(['ticket T-2021 opened for C-1003']);
    });

    it('refuses an unknown customer without creating anything', () => {
      const input = {
        customerId: 'C-9999',
        subject: 'Printer jam',
        description: 'The printer jams on every page.',
        priority: 'low' as const,
      };
      expect(() => tools.create(input, fakeContext())).toThrow(
        new McpToolError('No customer C-9999. Use search_customers to find the right id.'),
      );
      expect(store.all()).toHaveLength(20);
    });
  });

  describe('add_ticket_comment', () => {
    it('adds the comment and reopens a pending ticket', () => {
      expect(tools.comment({ ticketId: 'T-2002', author: 'tom.becker', body: 'Customer sent the invoice.' })).toEqual({
        id: 'T-2002',
        status: 'open',
        comments: 1,
      });
    });

    it('refuses to comment on a closed ticket, saying what to do instead', () => {
      expect(() => tools.comment({ ticketId: 'T-2004', author: 'sara.kim', body: 'Any news?' })).toThrow(
        new McpToolError('Ticket T-2004 is closed; open a new ticket instead of commenting.'),
      );
      expect(store.find('T-2004')!.comments).toHaveLength(1);
    });
  });

  describe('close_ticket', () => {
    it('closes with the resolution, and changes nothing when called again', () => {
      expect(tools.close({ ticketId: 'T-2001', resolution: 'Reset the account lock.' })).toEqual({
        id: 'T-2001',
        status: 'closed',
        alreadyClosed: false,
      });
      const closedAt = store.find('T-2001')!.updatedAt;
      expect(tools.close({ ticketId: 'T-2001', resolution: 'A second resolution.' })).toEqual({
        id: 'T-2001',
        status: 'closed',
        alreadyClosed: true,
      });
      expect(store.find('T-2001')).toMatchObject({ resolution: 'Reset the account lock.', updatedAt: closedAt });
    });

    it('tells the model how to find the right id when the ticket is unknown', () => {
      expect(() => tools.close({ ticketId: 'T-9999', resolution: 'Whatever.' })).toThrow(McpToolError);
    });
  });
});
