import { Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

export class CustomerIdDto {
  @JSONSchema({ description: 'The customer id, e.g. C-1001 (find ids with search_customers).' })
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;
}
