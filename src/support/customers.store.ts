import { CustomerNotFoundError } from './errors/customer-not-found.error';
import type { Customer, CustomerTier } from './support.types';

/** A customer's row in a list. */
export type CustomerSummary = Pick<Customer, 'id' | 'name' | 'company' | 'tier'>;

/** The row of `customer` in a list (search results), the same for every surface. */
export function summarizeCustomer({ id, name, company, tier }: Customer): CustomerSummary {
  return { id, name, company, tier };
}

export interface CustomerFilter {
  /** Words in the name or company, and in the e-mail address when `emails` is set (any case). */
  query?: string;
  /**
   * Match the query on e-mail addresses too: only for a caller cleared for personal data — for
   * anyone else, a search that finds a customer by its address tells what the address holds, one
   * character at a time (`clearedForPersonalData`).
   * @default false
   */
  emails?: boolean;
  tier?: CustomerTier;
  limit: number;
}

/**
 * The desk's customers, wherever they are kept: in process memory (`InMemoryCustomersStore`, the
 * default) or in PostgreSQL (`PostgresCustomersStore`, with DATABASE_URL). An abstract class so
 * that it is its own injection token (see `TicketsStore`). Every method hands out a snapshot.
 */
export abstract class CustomersStore {
  /** The customer with this id, or `undefined`. */
  abstract find(id: string): Promise<Customer | undefined>;

  /** The customers that match the query and tier, in id order, at most `limit`. */
  abstract search(filter: CustomerFilter): Promise<Customer[]>;

  /** @throws CustomerNotFoundError */
  async get(id: string): Promise<Customer> {
    const customer = await this.find(id);
    if (!customer) throw new CustomerNotFoundError(id);
    return customer;
  }
}
