import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_TIERS, type CustomerTier } from '../../support.types';

/** One customer with contact details and the number of open tickets (as `get_customer` returns it). */
export class CustomerResponse {
  @ApiProperty({ example: 'C-1001' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ format: 'email' })
  email!: string;

  @ApiProperty()
  company!: string;

  @ApiProperty({ enum: CUSTOMER_TIERS, enumName: 'CustomerTier' })
  tier!: CustomerTier;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: "How many of the customer's tickets are in status open.", type: 'integer' })
  openTickets!: number;
}
