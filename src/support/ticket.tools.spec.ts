import { Reflector, type ModuleRef } from '@nestjs/core';
import {
  MCP_TOOL_METADATA,
  McpResourceNotifier,
  McpToolError,
  type McpCallContext,
  type McpToolOptions,
} from 'nest-mcp-host';
import { InMemoryCustomersStore } from './in-memory-customers.store';
import { InMemoryTicketsStore } from './in-memory-tickets.store';
import { TicketOutput } from './support.schemas';
import { TicketTools } from './ticket.tools';
import { TicketChanges } from './ticket.resources';
import type { TicketsStore } from './tickets.store';

/** Just enough of a call context for the tools that log to the client. */
function fakeContext(): McpCallContext & { logged: unknown[] } {
  const logged: unknown[] = [];
  return { logged, log: { info: (data: unknown) => void logged.push(data) } } as unknown as McpCallContext & {
    logged: unknown[];
  };
}

/** A reader's call (not cleared for personal data). */
const reader = {
  caller: { id: 'reader', scopes: ['tickets:read'], roles: [], claims: {} },
} as unknown as McpCallContext;

describe('TicketTools', () => {
  let tools: TicketTools;
  let store: TicketsStore;
  /** The ticket URIs subscribers were told changed. */
  let updated: string[];
  beforeEach(() => {
    store = new InMemoryTicketsStore();
    const notifier = new McpResourceNotifier();
    updated = [];
    notifier.onUpdated((uri) => void updated.push(uri));
    const modules = { get: () => notifier } as unknown as ModuleRef;
    tools = new TicketTools(store, new InMemoryCustomersStore(), new TicketChanges(modules));
  });

  it("tells the ticket's subscribers when a comment or the closing changes it, and not when nothing changed", async () => {
    const [open] = await store.search({ status: 'open', limit: 1 });
    await tools.comment({ ticketId: open.id, author: 'agent', body: 'Looking into it.' });
    await tools.close({ ticketId: open.id, resolution: 'Fixed.' });
    await tools.close({ ticketId: open.id, resolution: 'Fixed again.' });
    expect(updated).toEqual([`desk://tickets/${open.id}`, `desk://tickets/${open.id}`]);
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
    it('combines the filters and returns a summary of each ticket', async () => {
      expect(await tools.search({ status: 'pending', assignee: 'tom.becker' }, reader)).toEqual({
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
      expect(
        (await tools.search({ priority: 'urgent', customerId: 'C-1008' }, reader)).tickets.map((ticket) => ticket.id),
      ).toEqual(['T-2016']);
    });

    it('returns twenty tickets by default, fewer when asked', async () => {
      await store.create({
        customerId: 'C-1001',
        subject: 'One more',
        description: 'The twenty-first ticket.',
        priority: 'low',
      });
      expect((await tools.search({}, reader)).count).toBe(20);
      expect((await tools.search({ limit: 2 }, reader)).tickets.map((ticket) => ticket.id)).toEqual([
        'T-2001',
        'T-2002',
      ]);
    });
    it('matches the e-mail addresses in descriptions only for a caller cleared for personal data', async () => {
      // T-2010's description carries its customer's address (support.seed.ts).
      const ids = async (text: string, ctx: McpCallContext) =>
        (await tools.search({ text }, ctx)).tickets.map((ticket) => ticket.id);
      expect(await ids('bruno@contoso', reader)).toEqual([]);
      expect(await ids('Reply to redacted@', reader)).toEqual(['T-2010', 'T-2020']); // as the reader reads them
      const admin = { caller: { id: 'admin', scopes: [], roles: ['admin'], claims: {} } } as unknown as McpCallContext;
      expect(await ids('bruno@contoso', admin)).toEqual(['T-2010']);
    });
  });

  describe('get_ticket', () => {
    it('returns the whole ticket, as its output schema promises', async () => {
      const ticket = await tools.get({ ticketId: 'T-2001' });
      expect(ticket).toMatchObject({ id: 'T-2001', status: 'open', comments: [{ author: 'maria.lopez' }] });
      expect(TicketOutput.safeParse(ticket).success).toBe(true);
    });

    it('tells the model how to find the right id when the ticket is unknown', async () => {
      await expect(tools.get({ ticketId: 'T-9999' })).rejects.toThrow(
        new McpToolError('No ticket T-9999. Use search_tickets to find the right id.'),
      );
    });
  });

  describe('create_ticket', () => {
    it('opens the ticket and tells the client', async () => {
      const ctx = fakeContext();
      const created = await tools.create(
        {
          customerId: 'C-1003',
          subject: 'Printer jam',
          description: 'The printer jams on every page.',
          priority: 'low',
        },
        ctx,
      );
      expect(created).toEqual({ id: 'T-2021', status: 'open' });
      expect(await store.find('T-2021')).toMatchObject({
        customerId: 'C-1003',
        subject: 'Printer jam',
        assignee: null,
      });
      expect(ctx.logged).toEqual(['ticket T-2021 opened for C-1003']);
    });

    it('refuses an unknown customer without creating anything', async () => {
      const input = {
        customerId: 'C-9999',
        subject: 'Printer jam',
        description: 'The printer jams on every page.',
        priority: 'low' as const,
      };
      await expect(tools.create(input, fakeContext())).rejects.toThrow(
        new McpToolError('No customer C-9999. Use search_customers to find the right id.'),
      );
      expect(await store.all()).toHaveLength(20);
    });
  });

  describe('add_ticket_comment', () => {
    it('adds the comment and reopens a pending ticket', async () => {
      expect(
        await tools.comment({ ticketId: 'T-2002', author: 'tom.becker', body: 'Customer sent the invoice.' }),
      ).toEqual({
        id: 'T-2002',
        status: 'open',
        comments: 1,
      });
    });

    it('refuses to comment on a closed ticket, saying what to do instead', async () => {
      await expect(tools.comment({ ticketId: 'T-2004', author: 'sara.kim', body: 'Any news?' })).rejects.toThrow(
        new McpToolError('Ticket T-2004 is closed; open a new ticket instead of commenting.'),
      );
      expect((await store.find('T-2004'))!.comments).toHaveLength(1);
      await expect(tools.comment({ ticketId: 'T-9999', author: 'sara.kim', body: 'Any news?' })).rejects.toThrow(
        new McpToolError('No ticket T-9999. Use search_tickets to find the right id.'),
      );
    });
  });

  describe('close_ticket', () => {
    it('closes with the resolution, and changes nothing when called again', async () => {
      expect(await tools.close({ ticketId: 'T-2001', resolution: 'Reset the account lock.' })).toEqual({
        id: 'T-2001',
        status: 'closed',
        alreadyClosed: false,
      });
      const closedAt = (await store.find('T-2001'))!.updatedAt;
      expect(await tools.close({ ticketId: 'T-2001', resolution: 'A second resolution.' })).toEqual({
        id: 'T-2001',
        status: 'closed',
        alreadyClosed: true,
      });
      expect(await store.find('T-2001')).toMatchObject({ resolution: 'Reset the account lock.', updatedAt: closedAt });
    });

    it('tells the model how to find the right id when the ticket is unknown', async () => {
      await expect(tools.close({ ticketId: 'T-9999', resolution: 'Whatever.' })).rejects.toThrow(
        new McpToolError('No ticket T-9999. Use search_tickets to find the right id.'),
      );
    });
  });
});
