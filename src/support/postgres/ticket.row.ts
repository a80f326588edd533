import type { Ticket, TicketComment, TicketPriority, TicketStatus } from '../support.types';

/** The columns of `desk_tickets` a ticket is read from, in `SELECT` and `RETURNING` lists. */
export const TICKET_COLUMNS =
  'id, customer_id, subject, description, status, priority, assignee, created_at, updated_at, resolution, comments';

/** A row of `desk_tickets` as `pg` returns it (`timestamptz` as `Date`, `jsonb` parsed). */
export interface TicketRow {
  id: string;
  customer_id: string;
  subject: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  assignee: string | null;
  created_at: Date;
  updated_at: Date;
  resolution: string | null;
  comments: TicketComment[];
}

/** The ticket a row holds, its fields in the order the in-memory store gives them. */
export function ticketFromRow(row: TicketRow): Ticket {
  return {
    id: row.id,
    customerId: row.customer_id,
    subject: row.subject,
    description: row.description,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    resolution: row.resolution,
    // jsonb reorders an object's keys; put them back in the order clients see from the in-memory store.
    comments: row.comments.map(({ author, body, at }) => ({ author, body, at })),
  };
}
