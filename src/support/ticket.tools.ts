import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpContext, McpTool, McpToolError, type McpCallContext, RequireScopes } from 'nest-mcp-host';
import { CallTimingInterceptor } from './call-timing.interceptor';
import { DeskScopes } from './desk.scopes';
import { CustomersStore } from './customers.store';
import { clearedForPersonalData } from './personal-data';
import { TicketClosedError } from './errors/ticket-closed.error';
import { TicketNotFoundError } from './errors/ticket-not-found.error';
import { AddCommentDto } from './dto/add-comment.dto';
import { CloseTicketDto } from './dto/close-ticket.dto';
import { CreateTicketDto } from './dto/create-ticket.dto';
import { SearchTicketsDto } from './dto/search-tickets.dto';
import { TicketIdDto } from './dto/ticket-id.dto';
import { TicketOutput } from './support.schemas';
import type { Ticket } from './support.types';
import { summarizeTicket, TicketsStore } from './tickets.store';
import { TicketChanges } from './ticket.resources';

@Injectable()
@UseInterceptors(CallTimingInterceptor)
@RequireScopes(DeskScopes.ticketsRead)
export class TicketTools {
  constructor(
    private readonly tickets: TicketsStore,
    private readonly customers: CustomersStore,
    private readonly changes: TicketChanges,
  ) {}

  @McpTool({
    name: 'search_tickets',
    title: 'Search tickets',
    description:
      'Lists tickets filtered by status, priority, customer, assignee or words in the subject/description (newest ids last).',
    annotations: { readOnlyHint: true, openWorldHint: false },
    // On the command line: `npm run -s desk -- call search_tickets -s open --priority high`.
    cli: { aliases: { status: '-s', priority: '-p' } },
  })
  async search(@McpArgs() { limit, ...filter }: SearchTicketsDto, @McpContext() ctx: McpCallContext) {
    // Addresses in descriptions are matched only for a caller who may read them (no oracle for the others).
    const emails = clearedForPersonalData(ctx.caller);
    const found = await this.tickets.search({ ...filter, emails, limit: limit ?? 20 });
    return { tickets: found.map(summarizeTicket), count: found.length };
  }

  @McpTool({
    name: 'get_ticket',
    title: 'Get a ticket',
    description: 'Returns one ticket with its description, resolution and comments.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: TicketOutput,
    cli: { positional: ['ticketId'] },
    // Clients that render MCP Apps views show the ticket card (src/support/views).
    ui: { resource: 'ui://desk/ticket-card' },
  })
  async get(@McpArgs() { ticketId }: TicketIdDto): Promise<Ticket> {
    const ticket = await this.tickets.find(ticketId);
    if (!ticket) throw noTicket(ticketId);
    return ticket;
  }

  @RequireScopes(DeskScopes.ticketsWrite)
  @McpTool({
    name: 'create_ticket',
    title: 'Open a ticket',
    description: 'Opens a new ticket for a customer. Search first to avoid duplicates.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  })
  async create(@McpArgs() input: CreateTicketDto, @McpContext() ctx: McpCallContext) {
    if (!(await this.customers.find(input.customerId))) {
      throw new McpToolError(`No customer ${input.customerId}. Use search_customers to find the right id.`);
    }
    const ticket = await this.tickets.create({ ...input });
    ctx.log.info(`ticket ${ticket.id} opened for ${input.customerId}`);
    return { id: ticket.id, status: ticket.status };
  }

  @RequireScopes(DeskScopes.ticketsWrite)
  @McpTool({
    name: 'add_ticket_comment',
    title: 'Comment on a ticket',
    description: 'Adds a comment to a ticket; a pending ticket becomes open again.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  })
  async comment(@McpArgs() { ticketId, author, body }: AddCommentDto) {
    // The store checks that the ticket is open as it adds the comment: no other replica can close it in between.
    const ticket = await this.tickets.addComment(ticketId, author, body).catch((error: unknown) => {
      if (error instanceof TicketNotFoundError) throw noTicket(ticketId);
      if (error instanceof TicketClosedError)
        throw new McpToolError(`Ticket ${ticketId} is closed; open a new ticket instead of commenting.`);
      throw error;
    });
    this.changes.changed(ticket.id);
    return { id: ticket.id, status: ticket.status, comments: ticket.comments.length };
  }

  @RequireScopes(DeskScopes.ticketsWrite)
  @McpTool({
    name: 'close_ticket',
    title: 'Close a ticket',
    description: 'Closes a ticket with a resolution. Closing an already closed ticket changes nothing.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    cli: { positional: ['ticketId'], aliases: { resolution: '-r' } },
    // The view shows the person approving the call what they approve.
    ui: { resource: 'ui://desk/close-approval' },
  })
  async close(@McpArgs() { ticketId, resolution }: CloseTicketDto) {
    try {
      const ticket = await this.tickets.closeOpen(ticketId, resolution);
      this.changes.changed(ticket.id);
      return { id: ticket.id, status: ticket.status, alreadyClosed: false };
    } catch (error) {
      // Closed already (perhaps by another replica a moment ago): nothing changes, as the tool promises.
      if (error instanceof TicketClosedError) return { id: ticketId, status: 'closed' as const, alreadyClosed: true };
      if (error instanceof TicketNotFoundError) throw noTicket(ticketId);
      throw error;
    }
  }
}

/** The tool error for an unknown ticket id, with how to find the right one. */
function noTicket(ticketId: string): McpToolError {
  return new McpToolError(`No ticket ${ticketId}. Use search_tickets to find the right id.`);
}
