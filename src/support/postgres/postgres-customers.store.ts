import { Injectable } from '@nestjs/common';
import { type CustomerFilter, CustomersStore } from '../customers.store';
import type { Customer } from '../support.types';
import { CUSTOMER_COLUMNS, customerFromRow, type CustomerRow } from './customer.row';
import { DeskDatabase } from './desk-database';

/** Customers in PostgreSQL (`desk_customers`), shared by every replica on the same DATABASE_URL. */
@Injectable()
export class PostgresCustomersStore extends CustomersStore {
  constructor(private readonly database: DeskDatabase) {
    super();
  }

  async find(id: string): Promise<Customer | undefined> {
    const { rows } = await this.database.query<CustomerRow>(
      `SELECT ${CUSTOMER_COLUMNS} FROM desk_customers WHERE id = $1`,
      [id],
    );
    return rows[0] && customerFromRow(rows[0]);
  }

  async search(filter: CustomerFilter): Promise<Customer[]> {
    // Any of name, company (and email, when the caller may see it) containing the query, in any case, as in memory.
    const { rows } = await this.database.query<CustomerRow>(
      `SELECT ${CUSTOMER_COLUMNS} FROM desk_customers
       WHERE ($1::text IS NULL OR tier = $1)
         AND ($2::text IS NULL OR strpos(lower(name), lower($2)) > 0
                               OR ($4::boolean AND strpos(lower(email), lower($2)) > 0)
                               OR strpos(lower(company), lower($2)) > 0)
       ORDER BY id
       LIMIT $3`,
      [filter.tier || null, filter.query || null, Math.max(0, filter.limit), filter.emails === true],
    );
    return rows.map(customerFromRow);
  }
}
