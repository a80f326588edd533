import { Injectable } from '@nestjs/common';
import {
  embeddedResource,
  McpArgs,
  McpCompletion,
  McpPrompt,
  McpToolError,
  userMessage,
  RequireScopes,
} from 'nest-mcp-host';
import { DeskScopes } from './desk.scopes';
import { TicketsStore } from './tickets.store';

/** A prompt that sets an agent up to triage one ticket. */
@Injectable()
@RequireScopes(DeskScopes.ticketsRead)
export class TriagePrompt {
  constructor(private readonly tickets: TicketsStore) {}

  @McpPrompt({
    name: 'triage_ticket',
    title: 'Triage a ticket',
    description: 'Classify a ticket, set its priority and propose the next step, using the knowledge base.',
    args: [{ name: 'ticketId', description: 'The ticket to triage, e.g. T-2001', required: true }],
  })
  async triage(@McpArgs('ticketId') ticketId: string) {
    const ticket = await this.tickets.find(ticketId);
    if (!ticket) throw new McpToolError(`No ticket ${ticketId}; use search_tickets to find one.`);
    return [
      userMessage(
        embeddedResource({
          uri: `desk://tickets/${ticket.id}`,
          mimeType: 'application/json',
          text: JSON.stringify(ticket, null, 2),
        }),
      ),
      userMessage(
        `Triage ticket ${ticket.id} above. 1) Classify it (billing, access, integration, product). ` +
          '2) Say whether its priority fits; 3) find a matching article in kb://articles and cite it; ' +
          '4) propose the next step as a comment — do not close the ticket.',
      ),
    ];
  }

  /** Suggests open tickets while the user types an id. */
  @McpCompletion({ prompt: 'triage_ticket', argument: 'ticketId' })
  async openTicketIds(typed: string): Promise<string[]> {
    const prefix = typed.toUpperCase();
    return (await this.tickets.search({ status: 'open', limit: 100 }))
      .map((ticket) => ticket.id)
      .filter((id) => id.startsWith(prefix));
  }
}
