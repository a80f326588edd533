import { ApiProperty } from '@nestjs/swagger';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from '../../support.types';

/** A ticket's row in a list. */
export class TicketSummaryResponse {
  @ApiProperty({ example: 'T-2001' })
  id!: string;

  @ApiProperty()
  subject!: string;

  @ApiProperty({ enum: TICKET_STATUSES, enumName: 'TicketStatus' })
  status!: TicketStatus;

  @ApiProperty({ enum: TICKET_PRIORITIES, enumName: 'TicketPriority' })
  priority!: TicketPriority;

  @ApiProperty({ example: 'C-1001' })
  customerId!: string;

  @ApiProperty({ description: 'null while unassigned.', type: String, nullable: true })
  assignee!: string | null;
}

/** The tickets that match a search (as `search_tickets` returns them). */
export class TicketListResponse {
  @ApiProperty({ type: [TicketSummaryResponse] })
  tickets!: TicketSummaryResponse[];

  @ApiProperty({ description: 'How many tickets are in `tickets`.', type: 'integer' })
  count!: number;
}
