import { Injectable } from '@nestjs/common';
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

/** Tickets, kept in process memory (the embedded default of the example host). */
@Injectable()
export class TicketsStore {
  private readonly tickets = new Map(SEED_TICKETS.map((ticket) => [ticket.id, structuredClone(ticket)]));
  private nextNumber = 2001 + SEED_TICKETS.length;

  find(id: string): Ticket | undefined {
    return this.tickets.get(id);
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

  close(ticket: Ticket, resolution: string): Ticket {
    ticket.status = 'closed';
    ticket.resolution = resolution;
    ticket.updatedAt = new Date().toISOString();
    return ticket;
  }
}
