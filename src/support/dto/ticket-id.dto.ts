import { Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiProperty } from '@nestjs/swagger';

export class TicketIdDto {
  @JSONSchema({ description: 'The ticket id, e.g. T-2001 (find ids with search_tickets).' })
  @ApiProperty({ description: 'The ticket id, e.g. T-2001.', pattern: '^T-\\d{4,}$', example: 'T-2001' })
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;
}
