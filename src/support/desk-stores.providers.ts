import type { Provider } from '@nestjs/common';
import { CustomersStore } from './customers.store';
import { InMemoryCustomersStore } from './in-memory-customers.store';
import { InMemoryTicketsStore } from './in-memory-tickets.store';
import { DeskDatabase } from './postgres/desk-database';
import { PostgresCustomersStore } from './postgres/postgres-customers.store';
import { PostgresTicketsStore } from './postgres/postgres-tickets.store';
import { TicketsStore } from './tickets.store';

/**
 * The stores behind `CustomersStore` and `TicketsStore`: in PostgreSQL when a database URL is
 * given (every replica on it sees the same data), else in process memory, seeded.
 */
export function deskStoreProviders(databaseUrl: string | undefined): Provider[] {
  if (!databaseUrl)
    return [
      { provide: CustomersStore, useClass: InMemoryCustomersStore },
      { provide: TicketsStore, useClass: InMemoryTicketsStore },
    ];
  return [
    { provide: DeskDatabase, useFactory: () => new DeskDatabase(databaseUrl) },
    { provide: CustomersStore, useClass: PostgresCustomersStore },
    { provide: TicketsStore, useClass: PostgresTicketsStore },
  ];
}
