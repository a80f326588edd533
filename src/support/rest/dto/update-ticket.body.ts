import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { TICKET_PRIORITIES, type TicketPriority } from '../../support.types';

/** The statuses a ticket can be moved to by an update (closing takes a resolution: `POST …/close`). */
const UPDATABLE_STATUSES = ['open', 'pending'] as const;

/** The body of `PATCH /api/tickets/:ticketId`: only the fields given change. */
export class UpdateTicketBody {
  @ApiPropertyOptional({ description: 'A new one-line summary.', minLength: 5, maxLength: 120 })
  @IsOptional()
  @IsString()
  @MinLength(5)
  @MaxLength(120)
  subject?: string;

  @ApiPropertyOptional({ description: 'A new description of the problem.', minLength: 10, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MinLength(10)
  @MaxLength(4000)
  description?: string;

  @ApiPropertyOptional({ description: 'A new priority.', enum: TICKET_PRIORITIES, enumName: 'TicketPriority' })
  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;

  @ApiPropertyOptional({
    description: 'open: being worked; pending: waiting on the customer. Close a ticket with POST …/close.',
    enum: UPDATABLE_STATUSES,
  })
  @IsOptional()
  @IsIn(UPDATABLE_STATUSES)
  status?: (typeof UPDATABLE_STATUSES)[number];

  @ApiPropertyOptional({
    description: 'The agent login to assign the ticket to, e.g. maria.lopez; null to unassign it.',
    type: String,
    nullable: true,
    minLength: 2,
    maxLength: 60,
  })
  // null passes @IsOptional and unassigns the ticket; a login must be text of 2 to 60 characters.
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(60)
  assignee?: string | null;
}
