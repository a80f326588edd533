/**
 * The key of the transaction-level advisory lock every replica holds while it creates and seeds
 * the desk's tables, so that replicas starting together do it one after the other.
 */
export const DESK_SCHEMA_LOCK = 'support-desk:schema';

/**
 * The desk's tables, each statement safe to run again (`IF NOT EXISTS`). Ticket numbers come from
 * a sequence, so replicas never hand out the same id; `number` orders tickets oldest first.
 * Comments are a JSONB array on their ticket: adding one is a single atomic `UPDATE`.
 */
export const DESK_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS desk_customers (
     id text PRIMARY KEY,
     name text NOT NULL,
     email text NOT NULL,
     company text NOT NULL,
     tier text NOT NULL CHECK (tier IN ('standard', 'premium', 'enterprise')),
     created_at timestamptz NOT NULL
   )`,
  'CREATE SEQUENCE IF NOT EXISTS desk_ticket_numbers START WITH 2001',
  `CREATE TABLE IF NOT EXISTS desk_tickets (
     number bigint PRIMARY KEY,
     id text NOT NULL UNIQUE,
     customer_id text NOT NULL REFERENCES desk_customers (id),
     subject text NOT NULL,
     description text NOT NULL,
     status text NOT NULL CHECK (status IN ('open', 'pending', 'closed')),
     priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
     assignee text,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     resolution text,
     comments jsonb NOT NULL DEFAULT '[]'
   )`,
  'CREATE INDEX IF NOT EXISTS desk_tickets_customer_id ON desk_tickets (customer_id)',
];
