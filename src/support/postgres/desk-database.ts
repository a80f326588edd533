import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Pool, type PoolConfig, type QueryResult, type QueryResultRow } from 'pg';
import { DeskDatabaseError } from './desk-database.error';
import { DESK_SCHEMA, DESK_SCHEMA_LOCK } from './desk.schema';
import { type DeskSeeding, seedDeskTables } from './desk.seeding';

/**
 * The PostgreSQL database the desk keeps its customers and tickets in (DATABASE_URL): one `pg`
 * pool for both stores. At start-up it creates the tables when missing and seeds them when empty,
 * in one transaction under an advisory lock, so that replicas starting together do it once.
 *
 * @example
 * ```ts
 * const database = new DeskDatabase(process.env.DATABASE_URL);
 * await database.onModuleInit();
 * const tickets = new PostgresTicketsStore(database);
 * ```
 */
export class DeskDatabase implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('SupportDesk');
  private readonly pool: Pool;
  private ended = false;

  /**
   * @param databaseUrl `postgres://user:password@host:5432/db`
   * @param pool any `pg` pool setting, over the defaults (`connectionTimeoutMillis` 5 000, `max` 10)
   */
  constructor(
    private readonly databaseUrl: string,
    pool: PoolConfig = {},
  ) {
    this.pool = new Pool({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000, max: 10, ...pool });
    // A connection whose server went away must not crash the process: the next query fails instead.
    // Idle connections report to the pool; those checked out need a listener of their own.
    this.pool.on('error', (error) => this.logger.warn(`PostgreSQL connection lost: ${error.message}`));
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /**
   * Creates the tables (when missing) and seeds them (when empty).
   * @throws DeskDatabaseError naming DATABASE_URL (password masked) when the server cannot be reached or refuses
   */
  async onModuleInit(): Promise<void> {
    try {
      const seeded = await this.prepare();
      if (seeded.customers || seeded.tickets)
        this.logger.log(`Seeded ${seeded.customers} customer(s) and ${seeded.tickets} ticket(s) in PostgreSQL`);
    } catch (error) {
      // Nest runs no shutdown hook after a failed start: free the connections here.
      await this.onApplicationShutdown().catch(() => undefined);
      throw new DeskDatabaseError(this.databaseUrl, error);
    }
  }

  /** Runs one parameterized statement on a pooled connection. */
  query<Row extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<QueryResult<Row>> {
    return this.pool.query<Row>(text, [...values]);
  }

  /**
   * Ends the pool once the application has drained its calls. Not in `onModuleDestroy`: Nest runs
   * that before `beforeApplicationShutdown`, where the host still finishes the calls in flight.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }

  private async prepare(): Promise<DeskSeeding> {
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      await client.query('BEGIN');
      // Held until COMMIT: a replica starting at the same time waits here, then finds the tables made and seeded.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [DESK_SCHEMA_LOCK]);
      for (const statement of DESK_SCHEMA) await client.query(statement);
      const seeded = await seedDeskTables(client);
      await client.query('COMMIT');
      return seeded;
    } catch (error) {
      failure = error as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // A connection that failed mid-transaction is closed rather than handed out again.
      client.release(failure);
    }
  }
}
