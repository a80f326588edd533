import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_TIERS, type CustomerTier } from '../../support.types';

/** A customer's row in a list. */
export class CustomerSummaryResponse {
  @ApiProperty({ example: 'C-1001' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  company!: string;

  @ApiProperty({ enum: CUSTOMER_TIERS, enumName: 'CustomerTier' })
  tier!: CustomerTier;
}

/** The customers that match a search (as `search_customers` returns them). */
export class CustomerListResponse {
  @ApiProperty({ type: [CustomerSummaryResponse] })
  customers!: CustomerSummaryResponse[];

  @ApiProperty({ description: 'How many customers are in `customers`.', type: 'integer' })
  count!: number;
}
