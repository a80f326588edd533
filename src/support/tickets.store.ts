import { Injectable } from '@nestjs/common';
import { TicketClosedError } from './errors/ticket-closed.error';
import { TicketNotFoundError } from './errors/ticket-not-found.error';
import { SEED_TICKETS } from './support.seed';
import type { Ticket, TicketPriority, TicketStatus } from './support.types';

export interface TicketFilter {
  status?: TicketStatus;
  priority?: TicketPriority;
  customerId?: string;
  assignee?: string;
  /** `true`: only tickets no agent is assigned to; `false`: only assigned ones. */
  unassigned?: boolean;
  text?: string;
  limit: number;
}

/** What an agent may change on a ticket that is not closed (`null` assignee: unassigned). */
export type TicketChanges = Partial<Pick<Ticket, 'subject' | 'description' | 'priority' | 'assignee'>> & {
  status?: Exclude<TicketStatus, 'closed'>;
};

/** A ticket's row in a list: what tells it apart, without the long fields. */
export type TicketSummary = Pick<Ticket, 'id' | 'subject' | 'status' | 'priority' | 'customerId' | 'assignee'>;

/** The row of `ticket` in a list (search results), the same for every surface. */
export function summarizeTicket({ id, subject, status, priority, customerId, assignee }: Ticket): TicketSummary {
  return { id, subject, status, priority, customerId, assignee };
}

/** Tickets, kept in process memory (the embedded default of the example host). */
@Injectable()
export class TicketsStore {
  private readonly tickets = new Map(SEED_TICKETS.map((ticket) => [ticket.id, structuredClone(ticket)]));
  private nextNumber = 2001 + SEED_TICKETS.length;

  find(id: string): Ticket | undefined {
    return this.tickets.get(id);
  }

  /** @throws TicketNotFoundError */
  get(id: string): Ticket {
    const ticket = this.tickets.get(id);
    if (!ticket) throw new TicketNotFoundError(id);
    return ticket;
  }

  all(): Ticket[] {
    return [...this.tickets.values()];
  }

  search(filter: TicketFilter): Ticket[] {
    const text = filter.text?.toLowerCase();
    return this.all()
      .filter((t) => !filter.status || t.status === filter.status)
      .filter((t) => !filter.priority || t.priority === filter.priority)
      .filter((t) => !filter.customerId || t.customerId === filter.customerId)
      .filter((t) => !filter.assignee || t.assignee === filter.assignee)
      .filter((t) => filter.unassigned === undefined || (t.assignee === null) === filter.unassigned)
      .filter((t) => !text || `${t.subject} ${t.description}`.toLowerCase().includes(text))
      .slice(0, filter.limit);
  }

  create(input: Pick<Ticket, 'customerId' | 'subject' | 'description' | 'priority'>): Ticket {
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
    return ticket;
  }

  addComment(ticket: Ticket, author: string, body: string): Ticket {
    const at = new Date().toISOString();
    ticket.comments.push({ author, body, at });
    ticket.updatedAt = at;
    if (ticket.status === 'pending') ticket.status = 'open';
    return ticket;
  }

  /** How many of the customer's tickets are open. */
  openCount(customerId: string): number {
    return this.all().filter((t) => t.customerId === customerId && t.status === 'open').length;
  }

  /** Applies `changes` (only the fields given). @throws TicketClosedError when the ticket is closed */
  update(ticket: Ticket, changes: TicketChanges): Ticket {
    if (ticket.status === 'closed') throw new TicketClosedError(ticket.id, 'changed');
    // Field by field, as in create: nothing else the input carries reaches the ticket.
    for (const field of ['subject', 'description', 'priority', 'assignee', 'status'] as const) {
      if (changes[field] !== undefined) Object.assign(ticket, { [field]: changes[field] });
    }
    ticket.updatedAt = new Date().toISOString();
    return ticket;
  }

  /** Closes a ticket that is not closed yet. @throws TicketClosedError when it already is */
  closeOpen(ticket: Ticket, resolution: string): Ticket {
    if (ticket.status === 'closed') throw new TicketClosedError(ticket.id, 'closed again');
    return this.close(ticket, resolution);
  }

  /** Deletes a ticket for good. @throws TicketNotFoundError */
  remove(id: string): Ticket {
    const ticket = this.get(id);
    this.tickets.delete(id);
    return ticket;
  }

  close(ticket: Ticket, resolution: string): Ticket {
    ticket.status = 'closed';
    ticket.resolution = resolution;
    ticket.updatedAt = new Date().toISOString();
    return ticket;
  }
}
