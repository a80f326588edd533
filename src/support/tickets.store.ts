import { TicketNotFoundError } from './errors/ticket-not-found.error';
import type { Ticket, TicketPriority, TicketStatus } from './support.types';

export interface TicketFilter {
  status?: TicketStatus;
  priority?: TicketPriority;
  customerId?: string;
  assignee?: string;
  /** `true`: only tickets no agent is assigned to; `false`: only assigned ones. */
  unassigned?: boolean;
  /** Words in the subject or description (any case). */
  text?: string;
  /**
   * Match `text` on the e-mail addresses in descriptions too: only for a caller cleared for
   * personal data — for anyone else an address reads as the guardrail redacts it, so that a search
   * cannot tell what it holds (`clearedForPersonalData`).
   * @default false
   */
  emails?: boolean;
  limit: number;
}

/** What a new ticket is made of; the store gives it its id, status and times. */
export type NewTicket = Pick<Ticket, 'customerId' | 'subject' | 'description' | 'priority'>;

/** What an agent may change on a ticket that is not closed (`null` assignee: unassigned). */
export type TicketChanges = Partial<Pick<Ticket, 'subject' | 'description' | 'priority' | 'assignee'>> & {
  status?: Exclude<TicketStatus, 'closed'>;
};

/** The fields of a ticket that `update` may change, in the order it applies them. */
export const CHANGEABLE_TICKET_FIELDS = ['subject', 'description', 'priority', 'assignee', 'status'] as const;

/** A ticket's row in a list: what tells it apart, without the long fields. */
export type TicketSummary = Pick<Ticket, 'id' | 'subject' | 'status' | 'priority' | 'customerId' | 'assignee'>;

/** The row of `ticket` in a list (search results), the same for every surface. */
export function summarizeTicket({ id, subject, status, priority, customerId, assignee }: Ticket): TicketSummary {
  return { id, subject, status, priority, customerId, assignee };
}

/**
 * The desk's tickets, wherever they are kept: in process memory (`InMemoryTicketsStore`, the
 * default) or in PostgreSQL (`PostgresTicketsStore`, with DATABASE_URL) so that every replica sees
 * the same tickets. Ticket ids read `T-<number>`, numbered from 2001.
 *
 * An abstract class rather than an interface and a Symbol: it is its own injection token, so the
 * tools, prompt and controllers keep injecting `TicketsStore` by type with no `@Inject…()`.
 *
 * Every method hands out a snapshot: changing a returned ticket changes nothing stored. The
 * methods that change a ticket take its id and check its state in the same step as the change,
 * so two replicas cannot both act on a ticket they each saw open.
 */
export abstract class TicketsStore {
  /** The ticket with this id, or `undefined`. */
  abstract find(id: string): Promise<Ticket | undefined>;

  /** Every ticket, oldest first. */
  abstract all(): Promise<Ticket[]>;

  /** The tickets that match every filter given, oldest first, at most `limit`. */
  abstract search(filter: TicketFilter): Promise<Ticket[]>;

  /** Opens a ticket (status `open`, unassigned) under the next free id. */
  abstract create(input: NewTicket): Promise<Ticket>;

  /**
   * Adds a comment; a pending ticket becomes open again.
   * @throws TicketNotFoundError
   * @throws TicketClosedError when the ticket is closed
   */
  abstract addComment(id: string, author: string, body: string): Promise<Ticket>;

  /** How many of the customer's tickets are open. */
  abstract openCount(customerId: string): Promise<number>;

  /**
   * Applies `changes` (only the fields given).
   * @throws TicketNotFoundError
   * @throws TicketClosedError when the ticket is closed
   */
  abstract update(id: string, changes: TicketChanges): Promise<Ticket>;

  /**
   * Closes a ticket that is not closed yet, with the resolution the customer will read.
   * @throws TicketNotFoundError
   * @throws TicketClosedError when it already is
   */
  abstract closeOpen(id: string, resolution: string): Promise<Ticket>;

  /**
   * Deletes a ticket for good.
   * @throws TicketNotFoundError
   */
  abstract remove(id: string): Promise<Ticket>;

  /** @throws TicketNotFoundError */
  async get(id: string): Promise<Ticket> {
    const ticket = await this.find(id);
    if (!ticket) throw new TicketNotFoundError(id);
    return ticket;
  }
}
