import { Injectable } from '@nestjs/common';
import { type CustomerFilter, CustomersStore } from './customers.store';
import { SEED_CUSTOMERS } from './support.seed';
import type { Customer } from './support.types';

/** Customers kept in process memory, seeded with the demo customers (the embedded default of the example host). */
@Injectable()
export class InMemoryCustomersStore extends CustomersStore {
  private readonly customers = new Map(SEED_CUSTOMERS.map((customer) => [customer.id, { ...customer }]));

  async find(id: string): Promise<Customer | undefined> {
    const customer = this.customers.get(id);
    return customer && { ...customer };
  }

  async search(filter: CustomerFilter): Promise<Customer[]> {
    const query = filter.query?.toLowerCase();
    return [...this.customers.values()]
      .filter((c) => !filter.tier || c.tier === filter.tier)
      .filter(
        (c) =>
          !query ||
          [c.name, c.company, ...(filter.emails ? [c.email] : [])].some((field) => field.toLowerCase().includes(query)),
      )
      .slice(0, filter.limit)
      .map((customer) => ({ ...customer }));
  }
}
