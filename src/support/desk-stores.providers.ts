import type { Provider } from '@nestjs/common';
import { CustomersStore } from './customers.store';
import { InMemoryCustomersStore } from './in-memory-customers.store';
import { InMemoryTicketsStore } from './in-memory-tickets.store';
import { TicketsStore } from './tickets.store';

/**
 * The stores behind `CustomersStore` and `TicketsStore`: in PostgreSQL when a database URL is
 * given (every replica on it sees the same data), else in process memory, seeded. The PostgreSQL
 * stores (and `pg`) are required only then: a desk in memory, and its CLI, load none of them.
 */
export function deskStoreProviders(databaseUrl: string | undefined): Provider[] {
  if (!databaseUrl)
    return [
      { provide: CustomersStore, useClass: InMemoryCustomersStore },
      { provide: TicketsStore, useClass: InMemoryTicketsStore },
    ];
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { DeskDatabase } = require('./postgres/desk-database') as typeof import('./postgres/desk-database');
  const { PostgresCustomersStore } =
    require('./postgres/postgres-customers.store') as typeof import('./postgres/postgres-customers.store');
  const { PostgresTicketsStore } =
    require('./postgres/postgres-tickets.store') as typeof import('./postgres/postgres-tickets.store');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return [
    { provide: DeskDatabase, useFactory: () => new DeskDatabase(databaseUrl) },
    { provide: CustomersStore, useClass: PostgresCustomersStore },
    { provide: TicketsStore, useClass: PostgresTicketsStore },
  ];
}
