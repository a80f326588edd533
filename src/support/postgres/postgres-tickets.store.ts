import { Injectable } from '@nestjs/common';
import { TicketClosedError } from '../errors/ticket-closed.error';
import { TicketNotFoundError } from '../errors/ticket-not-found.error';
import type { Ticket } from '../support.types';
import {
  CHANGEABLE_TICKET_FIELDS,
  type NewTicket,
  type TicketChanges,
  type TicketFilter,
  TicketsStore,
} from '../tickets.store';
import { EMAIL_PATTERN, REDACTED_EMAIL } from '../personal-data';
import { DeskDatabase } from './desk-database';
import { TICKET_COLUMNS, ticketFromRow, type TicketRow } from './ticket.row';

/**
 * Tickets in PostgreSQL (`desk_tickets`), shared by every replica on the same DATABASE_URL.
 * Ids come from a sequence; every change is one `UPDATE … WHERE status <> 'closed'`, so a ticket
 * closed by one replica cannot be changed by another that read it a moment before.
 */
@Injectable()
export class PostgresTicketsStore extends TicketsStore {
  constructor(private readonly database: DeskDatabase) {
    super();
  }

  async find(id: string): Promise<Ticket | undefined> {
    const { rows } = await this.database.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM desk_tickets WHERE id = $1`, [
      id,
    ]);
    return rows[0] && ticketFromRow(rows[0]);
  }

  async all(): Promise<Ticket[]> {
    const { rows } = await this.database.query<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM desk_tickets ORDER BY number`);
    return rows.map(ticketFromRow);
  }

  async search(filter: TicketFilter): Promise<Ticket[]> {
    // An empty filter value matches everything, as in memory.
    const { rows } = await this.database.query<TicketRow>(
      `SELECT ${TICKET_COLUMNS} FROM desk_tickets
       WHERE ($1::text IS NULL OR status = $1)
         AND ($2::text IS NULL OR priority = $2)
         AND ($3::text IS NULL OR customer_id = $3)
         AND ($4::text IS NULL OR assignee = $4)
         AND ($5::boolean IS NULL OR (assignee IS NULL) = $5)
         AND ($6::text IS NULL OR strpos(lower(CASE WHEN $8::boolean THEN subject || ' ' || description
                                                   ELSE regexp_replace(subject || ' ' || description, $9::text, $10::text, 'g') END),
                                         lower($6)) > 0)
       ORDER BY number
       LIMIT $7`,
      [
        filter.status || null,
        filter.priority || null,
        filter.customerId || null,
        filter.assignee || null,
        filter.unassigned ?? null,
        filter.text || null,
        Math.max(0, filter.limit),
        // Addresses read as the caller sees them: redacted unless it is cleared (as in memory).
        filter.emails === true,
        EMAIL_PATTERN,
        REDACTED_EMAIL,
      ],
    );
    return rows.map(ticketFromRow);
  }

  async create(input: NewTicket): Promise<Ticket> {
    const now = new Date().toISOString();
    // The number is drawn from the sequence in the INSERT itself: concurrent creates never share one.
    const { rows } = await this.database.query<TicketRow>(
      `INSERT INTO desk_tickets (number, id, customer_id, subject, description, priority, status, assignee,
                                 created_at, updated_at, resolution, comments)
       SELECT number, 'T-' || number, $1, $2, $3, $4, 'open', NULL, $5, $5, NULL, '[]'
       FROM nextval('desk_ticket_numbers') AS number
       RETURNING ${TICKET_COLUMNS}`,
      [input.customerId, input.subject, input.description, input.priority, now],
    );
    return ticketFromRow(rows[0]);
  }

  async addComment(id: string, author: string, body: string): Promise<Ticket> {
    const { rows } = await this.database.query<TicketRow>(
      `UPDATE desk_tickets
       SET comments = comments || jsonb_build_array(jsonb_build_object('author', $2::text, 'body', $3::text, 'at', $4::text)),
           updated_at = $4::text::timestamptz,
           status = CASE status WHEN 'pending' THEN 'open' ELSE status END
       WHERE id = $1 AND status <> 'closed'
       RETURNING ${TICKET_COLUMNS}`,
      [id, author, body, new Date().toISOString()],
    );
    if (!rows[0]) throw await this.refusal(id, 'commented on');
    return ticketFromRow(rows[0]);
  }

  async openCount(customerId: string): Promise<number> {
    const { rows } = await this.database.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM desk_tickets WHERE customer_id = $1 AND status = 'open'`,
      [customerId],
    );
    return rows[0].count;
  }

  async update(id: string, changes: TicketChanges): Promise<Ticket> {
    const values: unknown[] = [id, new Date().toISOString()];
    const assignments = ['updated_at = $2'];
    // Column names come from the fixed list of changeable fields (each named as its column); values are parameters.
    for (const field of CHANGEABLE_TICKET_FIELDS) {
      if (changes[field] === undefined) continue;
      values.push(changes[field]);
      assignments.push(`${field} = $${values.length}`);
    }
    const { rows } = await this.database.query<TicketRow>(
      `UPDATE desk_tickets SET ${assignments.join(', ')} WHERE id = $1 AND status <> 'closed' RETURNING ${TICKET_COLUMNS}`,
      values,
    );
    if (!rows[0]) throw await this.refusal(id, 'changed');
    return ticketFromRow(rows[0]);
  }

  async closeOpen(id: string, resolution: string): Promise<Ticket> {
    const { rows } = await this.database.query<TicketRow>(
      `UPDATE desk_tickets SET status = 'closed', resolution = $2, updated_at = $3
       WHERE id = $1 AND status <> 'closed'
       RETURNING ${TICKET_COLUMNS}`,
      [id, resolution, new Date().toISOString()],
    );
    if (!rows[0]) throw await this.refusal(id, 'closed again');
    return ticketFromRow(rows[0]);
  }

  async remove(id: string): Promise<Ticket> {
    const { rows } = await this.database.query<TicketRow>(
      `DELETE FROM desk_tickets WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
      [id],
    );
    if (!rows[0]) throw new TicketNotFoundError(id);
    return ticketFromRow(rows[0]);
  }

  /**
   * Why a guarded change touched no row: the ticket is missing or closed. Asking afterwards is
   * safe: closed is final and ids are never reused, so the answer cannot have been different.
   */
  private async refusal(id: string, action: string): Promise<TicketNotFoundError | TicketClosedError> {
    const { rowCount } = await this.database.query('SELECT 1 FROM desk_tickets WHERE id = $1', [id]);
    return rowCount ? new TicketClosedError(id, action) : new TicketNotFoundError(id);
  }
}
