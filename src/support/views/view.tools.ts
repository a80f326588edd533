import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool, McpToolError, RequireScopes } from 'nest-mcp-host';
import { CustomersStore } from '../customers.store';
import { DeskScopes } from '../desk.scopes';
import { TicketIdDto } from '../dto/ticket-id.dto';
import { StatusFilterDto } from '../dto/status-filter.dto';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../support.types';
import { TicketsStore } from '../tickets.store';

/**
 * Tools only the desk's views call (`visibility: ['app']`): a client that renders views keeps
 * them from the model and lets its views call them; any other client neither sees nor may call
 * them. They are governed like every tool: scopes, throttling, audit (recorded as from a view).
 */
@Injectable()
export class ViewTools {
  constructor(
    private readonly tickets: TicketsStore,
    private readonly customers: CustomersStore,
  ) {}

  @RequireScopes(DeskScopes.ticketsRead)
  @McpTool({
    name: 'ticket_customer',
    title: 'Customer of a ticket',
    description: 'The customer of a ticket and how many of their tickets are open (for the ticket card).',
    annotations: { readOnlyHint: true, openWorldHint: false },
    ui: { visibility: ['app'] },
  })
  async ticketCustomer(@McpArgs() { ticketId }: TicketIdDto) {
    const ticket = await this.tickets.find(ticketId);
    if (!ticket) throw new McpToolError(`No ticket ${ticketId}.`);
    const customer = await this.customers.find(ticket.customerId);
    if (!customer) throw new McpToolError(`No customer ${ticket.customerId}.`);
    const open = (await this.tickets.all()).filter(
      (other) => other.customerId === customer.id && other.status !== 'closed',
    );
    return { customer, openTickets: open.length };
  }

  @RequireScopes(DeskScopes.reports)
  @McpTool({
    name: 'ticket_status_counts',
    title: 'Tickets per status',
    description: 'How many tickets there are per status and per priority (for the report chart).',
    annotations: { readOnlyHint: true, openWorldHint: false },
    ui: { visibility: ['app'] },
  })
  async statusCounts(@McpArgs() { status }: StatusFilterDto) {
    const tickets = (await this.tickets.all()).filter((ticket) => !status || ticket.status === status);
    const count = <K extends string>(keys: readonly K[], of: (ticket: (typeof tickets)[number]) => K) =>
      Object.fromEntries(keys.map((key) => [key, tickets.filter((ticket) => of(ticket) === key).length]));
    return {
      total: tickets.length,
      byStatus: count(TICKET_STATUSES, (ticket) => ticket.status),
      byPriority: count(TICKET_PRIORITIES, (ticket) => ticket.priority),
    };
  }
}
