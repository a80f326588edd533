import { Injectable } from '@nestjs/common';
import { SEED_CUSTOMERS } from './support.seed';
import type { Customer, CustomerTier } from './support.types';

/** Customers, kept in process memory (the embedded default of the example host). */
@Injectable()
export class CustomersStore {
  private readonly customers = new Map(SEED_CUSTOMERS.map((customer) => [customer.id, { ...customer }]));

  find(id: string): Customer | undefined {
    return this.customers.get(id);
  }

  search(filter: { query?: string; tier?: CustomerTier; limit: number }): Customer[] {
    const query = filter.query?.toLowerCase();
    return [...this.customers.values()]
      .filter((c) => !filter.tier || c.tier === filter.tier)
      .filter((c) => !query || [c.name, c.email, c.company].some((field) => field.toLowerCase().includes(query)))
      .slice(0, filter.limit);
  }
}
