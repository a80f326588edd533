import { Injectable } from '@nestjs/common';
import { TicketClosedError } from './errors/ticket-closed.error';
import { TicketNotFoundError } from './errors/ticket-not-found.error';
import { withoutEmails } from './personal-data';
import { SEED_TICKETS } from './support.seed';
import type { Ticket } from './support.types';
import {
  CHANGEABLE_TICKET_FIELDS,
  type NewTicket,
  type TicketChanges,
  type TicketFilter,
  TicketsStore,
} from './tickets.store';

/**
 * Tickets kept in process memory, seeded with the demo tickets (the embedded default of the
 * example host: each process has tickets of its own). Each method runs to its end without
 * awaiting, so a check and the change it guards cannot interleave with another call.
 */
@Injectable()
export class InMemoryTicketsStore extends TicketsStore {
  private readonly tickets = new Map(SEED_TICKETS.map((ticket) => [ticket.id, structuredClone(ticket)]));
  private nextNumber = 2001 + SEED_TICKETS.length;

  async find(id: string): Promise<Ticket | undefined> {
    const ticket = this.tickets.get(id);
    return ticket && structuredClone(ticket);
  }

  async all(): Promise<Ticket[]> {
    return structuredClone([...this.tickets.values()]);
  }

  async search(filter: TicketFilter): Promise<Ticket[]> {
    const text = filter.text?.toLowerCase();
    return (await this.all())
      .filter((t) => !filter.status || t.status === filter.status)
      .filter((t) => !filter.priority || t.priority === filter.priority)
      .filter((t) => !filter.customerId || t.customerId === filter.customerId)
      .filter((t) => !filter.assignee || t.assignee === filter.assignee)
      .filter((t) => filter.unassigned === undefined || (t.assignee === null) === filter.unassigned)
      .filter(
        (t) =>
          !text ||
          searchable(t, filter.emails === true)
            .toLowerCase()
            .includes(text),
      )
      .slice(0, filter.limit);
  }

  async create(input: NewTicket): Promise<Ticket> {
    const now = new Date().toISOString();
    // Field by field: whatever else the input object carries never reaches a stored ticket.
    const ticket: Ticket = {
      id: `T-${this.nextNumber++}`,
      customerId: input.customerId,
      subject: input.subject,
      description: input.description,
      priority: input.priority,
      status: 'open',
      assignee: null,
      createdAt: now,
      updatedAt: now,
      resolution: null,
      comments: [],
    };
    this.tickets.set(ticket.id, ticket);
    return structuredClone(ticket);
  }

  async addComment(id: string, author: string, body: string): Promise<Ticket> {
    const ticket = this.notClosed(id, 'commented on');
    const at = new Date().toISOString();
    ticket.comments.push({ author, body, at });
    ticket.updatedAt = at;
    if (ticket.status === 'pending') ticket.status = 'open';
    return structuredClone(ticket);
  }

  async openCount(customerId: string): Promise<number> {
    return [...this.tickets.values()].filter((t) => t.customerId === customerId && t.status === 'open').length;
  }

  async update(id: string, changes: TicketChanges): Promise<Ticket> {
    const ticket = this.notClosed(id, 'changed');
    // Field by field, as in create: nothing else the input carries reaches the ticket.
    for (const field of CHANGEABLE_TICKET_FIELDS) {
      if (changes[field] !== undefined) Object.assign(ticket, { [field]: changes[field] });
    }
    ticket.updatedAt = new Date().toISOString();
    return structuredClone(ticket);
  }

  async closeOpen(id: string, resolution: string): Promise<Ticket> {
    const ticket = this.notClosed(id, 'closed again');
    ticket.status = 'closed';
    ticket.resolution = resolution;
    ticket.updatedAt = new Date().toISOString();
    return structuredClone(ticket);
  }

  async remove(id: string): Promise<Ticket> {
    const ticket = this.tickets.get(id);
    if (!ticket) throw new TicketNotFoundError(id);
    this.tickets.delete(id);
    return ticket;
  }

  /** The stored ticket itself, to change. @throws TicketNotFoundError, TicketClosedError (`action`: what was refused) */
  private notClosed(id: string, action: string): Ticket {
    const ticket = this.tickets.get(id);
    if (!ticket) throw new TicketNotFoundError(id);
    if (ticket.status === 'closed') throw new TicketClosedError(id, action);
    return ticket;
  }
}

/** What a text search reads of a ticket: its addresses as the caller sees them. */
function searchable(ticket: Ticket, emails: boolean): string {
  const text = `${ticket.subject} ${ticket.description}`;
  return emails ? text : withoutEmails(text);
}
