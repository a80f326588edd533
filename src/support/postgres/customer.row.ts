import type { Customer, CustomerTier } from '../support.types';

/** The columns of `desk_customers` a customer is read from. */
export const CUSTOMER_COLUMNS = 'id, name, email, company, tier, created_at';

/** A row of `desk_customers` as `pg` returns it (`timestamptz` as `Date`). */
export interface CustomerRow {
  id: string;
  name: string;
  email: string;
  company: string;
  tier: CustomerTier;
  created_at: Date;
}

/** The customer a row holds. */
export function customerFromRow(row: CustomerRow): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    company: row.company,
    tier: row.tier,
    createdAt: row.created_at.toISOString(),
  };
}
