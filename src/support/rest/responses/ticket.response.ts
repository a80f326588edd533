import { ApiProperty } from '@nestjs/swagger';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from '../../support.types';

/** A comment on a ticket. */
export class TicketCommentResponse {
  @ApiProperty({ description: 'The agent login who wrote it.', example: 'maria.lopez' })
  author!: string;

  @ApiProperty({ description: 'The comment.' })
  body!: string;

  @ApiProperty({ description: 'When it was written (ISO 8601).', format: 'date-time' })
  at!: string;
}

/** One ticket with its description, resolution and comments (as `get_ticket` returns it). */
export class TicketResponse {
  @ApiProperty({ description: 'The ticket id.', example: 'T-2001' })
  id!: string;

  @ApiProperty({ description: 'The customer the ticket is for.', example: 'C-1001' })
  customerId!: string;

  @ApiProperty({ description: 'A one-line summary of the problem.' })
  subject!: string;

  @ApiProperty({ description: 'What happens, since when, and what the customer already tried.' })
  description!: string;

  @ApiProperty({ enum: TICKET_STATUSES, enumName: 'TicketStatus' })
  status!: TicketStatus;

  @ApiProperty({ enum: TICKET_PRIORITIES, enumName: 'TicketPriority' })
  priority!: TicketPriority;

  @ApiProperty({
    description: 'The agent login working the ticket; null while unassigned.',
    type: String,
    nullable: true,
  })
  assignee!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({ description: 'What fixed it; null until the ticket is closed.', type: String, nullable: true })
  resolution!: string | null;

  @ApiProperty({ type: [TicketCommentResponse] })
  comments!: TicketCommentResponse[];
}
