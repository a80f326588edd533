import { Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

export class TicketIdDto {
  @JSONSchema({ description: 'The ticket id, e.g. T-2001 (find ids with search_tickets).' })
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;
}
