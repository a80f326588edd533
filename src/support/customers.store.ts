import { Injectable } from '@nestjs/common';
import { CustomerNotFoundError } from './errors/customer-not-found.error';
import { SEED_CUSTOMERS } from './support.seed';
import type { Customer, CustomerTier } from './support.types';

/** A customer's row in a list. */
export type CustomerSummary = Pick<Customer, 'id' | 'name' | 'company' | 'tier'>;

/** The row of `customer` in a list (search results), the same for every surface. */
export function summarizeCustomer({ id, name, company, tier }: Customer): CustomerSummary {
  return { id, name, company, tier };
}

/** Customers, kept in process memory (the embedded default of the example host). */
@Injectable()
export class CustomersStore {
  private readonly customers = new Map(SEED_CUSTOMERS.map((customer) => [customer.id, { ...customer }]));

  find(id: string): Customer | undefined {
    return this.customers.get(id);
  }

  /** @throws CustomerNotFoundError */
  get(id: string): Customer {
    const customer = this.customers.get(id);
    if (!customer) throw new CustomerNotFoundError(id);
    return customer;
  }

  search(filter: { query?: string; tier?: CustomerTier; limit: number }): Customer[] {
    const query = filter.query?.toLowerCase();
    return [...this.customers.values()]
      .filter((c) => !filter.tier || c.tier === filter.tier)
      .filter((c) => !query || [c.name, c.email, c.company].some((field) => field.toLowerCase().includes(query)))
      .slice(0, filter.limit);
  }
}
