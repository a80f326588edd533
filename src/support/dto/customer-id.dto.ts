import { Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiProperty } from '@nestjs/swagger';

export class CustomerIdDto {
  @JSONSchema({ description: 'The customer id, e.g. C-1001 (find ids with search_customers).' })
  @ApiProperty({ description: 'The customer id, e.g. C-1001.', pattern: '^C-\\d{4}$', example: 'C-1001' })
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;
}
