import type { PoolClient } from 'pg';
import { SEED_CUSTOMERS, SEED_TICKETS } from '../support.seed';

/** How many rows `seedDeskTables` inserted into each table (0: the table had data already). */
export interface DeskSeeding {
  customers: number;
  tickets: number;
}

/**
 * Inserts the demo customers into an empty customers table, and the demo tickets into an empty
 * tickets table that never numbered a ticket (so deleting every ticket does not bring the demo
 * ones back). Runs inside the schema transaction, under its advisory lock.
 */
export async function seedDeskTables(client: PoolClient): Promise<DeskSeeding> {
  const { rows } = await client.query<{ customers: boolean; tickets: boolean; numbered: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM desk_customers) AS customers,
            EXISTS (SELECT 1 FROM desk_tickets) AS tickets,
            (SELECT is_called FROM desk_ticket_numbers) AS numbered`,
  );
  const [state] = rows;
  const seeding: DeskSeeding = { customers: 0, tickets: 0 };
  if (!state.customers) {
    const inserted = await client.query(
      `INSERT INTO desk_customers (id, name, email, company, tier, created_at)
       SELECT id, name, email, company, tier, "createdAt"
       FROM jsonb_to_recordset($1::jsonb)
         AS seed(id text, name text, email text, company text, tier text, "createdAt" timestamptz)`,
      [JSON.stringify(SEED_CUSTOMERS)],
    );
    seeding.customers = inserted.rowCount ?? 0;
  }
  if (!state.tickets && !state.numbered) {
    const inserted = await client.query(
      `INSERT INTO desk_tickets (number, id, customer_id, subject, description, status, priority, assignee,
                                 created_at, updated_at, resolution, comments)
       SELECT split_part(id, '-', 2)::bigint, id, "customerId", subject, description, status, priority, assignee,
              "createdAt", "updatedAt", resolution, comments
       FROM jsonb_to_recordset($1::jsonb)
         AS seed(id text, "customerId" text, subject text, description text, status text, priority text,
                 assignee text, "createdAt" timestamptz, "updatedAt" timestamptz, resolution text, comments jsonb)`,
      [JSON.stringify(SEED_TICKETS)],
    );
    seeding.tickets = inserted.rowCount ?? 0;
    // New tickets are numbered after the seeded ones, as in memory.
    await client.query(`SELECT setval('desk_ticket_numbers', (SELECT max(number) FROM desk_tickets))`);
  }
  return seeding;
}
