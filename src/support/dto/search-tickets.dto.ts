import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from '../support.types';

export class SearchTicketsDto {
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;

  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;

  @IsOptional()
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId?: string;

  @IsOptional()
  @IsString()
  @MaxLength(60)
  assignee?: string;

  /** Words to find in the subject or description. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  text?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
