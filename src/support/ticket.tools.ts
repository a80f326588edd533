import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpContext, McpTool, McpToolError, type McpCallContext, RequireScopes } from 'nest-mcp-host';
import { CallTimingInterceptor } from './call-timing.interceptor';
import { DeskScopes } from './desk.scopes';
import { CustomersStore } from './customers.store';
import { AddCommentDto } from './dto/add-comment.dto';
import { CloseTicketDto } from './dto/close-ticket.dto';
import { CreateTicketDto } from './dto/create-ticket.dto';
import { SearchTicketsDto } from './dto/search-tickets.dto';
import { TicketIdDto } from './dto/ticket-id.dto';
import { TicketOutput } from './support.schemas';
import type { Ticket } from './support.types';
import { summarizeTicket, TicketsStore } from './tickets.store';

@Injectable()
@UseInterceptors(CallTimingInterceptor)
@RequireScopes(DeskScopes.ticketsRead)
export class TicketTools {
  constructor(
    private readonly tickets: TicketsStore,
    private readonly customers: CustomersStore,
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
  search(@McpArgs() { limit, ...filter }: SearchTicketsDto) {
    const found = this.tickets.search({ ...filter, limit: limit ?? 20 });
    return { tickets: found.map(summarizeTicket), count: found.length };
  }

  @McpTool({
    name: 'get_ticket',
    title: 'Get a ticket',
    description: 'Returns one ticket with its description, resolution and comments.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: TicketOutput,
    cli: { positional: ['ticketId'] },
  })
  get(@McpArgs() { ticketId }: TicketIdDto): Ticket {
    return this.require(ticketId);
  }

  @RequireScopes(DeskScopes.ticketsWrite)
  @McpTool({
    name: 'create_ticket',
    title: 'Open a ticket',
    description: 'Opens a new ticket for a customer. Search first to avoid duplicates.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  })
  create(@McpArgs() input: CreateTicketDto, @McpContext() ctx: McpCallContext) {
    if (!this.customers.find(input.customerId)) {
      throw new McpToolError(`No customer ${input.customerId}. Use search_customers to find the right id.`);
    }
    const ticket = this.tickets.create({ ...input });
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
  comment(@McpArgs() { ticketId, author, body }: AddCommentDto) {
    const ticket = this.require(ticketId);
    if (ticket.status === 'closed')
      throw new McpToolError(`Ticket ${ticketId} is closed; open a new ticket instead of commenting.`);
    this.tickets.addComment(ticket, author, body);
    return { id: ticket.id, status: ticket.status, comments: ticket.comments.length };
  }

  @RequireScopes(DeskScopes.ticketsWrite)
  @McpTool({
    name: 'close_ticket',
    title: 'Close a ticket',
    description: 'Closes a ticket with a resolution. Closing an already closed ticket changes nothing.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    cli: { positional: ['ticketId'], aliases: { resolution: '-r' } },
  })
  close(@McpArgs() { ticketId, resolution }: CloseTicketDto) {
    const ticket = this.require(ticketId);
    if (ticket.status === 'closed') return { id: ticket.id, status: ticket.status, alreadyClosed: true };
    this.tickets.close(ticket, resolution);
    return { id: ticket.id, status: ticket.status, alreadyClosed: false };
  }

  private require(ticketId: string): Ticket {
    const ticket = this.tickets.find(ticketId);
    if (!ticket) throw new McpToolError(`No ticket ${ticketId}. Use search_tickets to find the right id.`);
    return ticket;
  }
}
