import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from '../support.types';

/** Every filter is optional; the ones given must all match. */
export class SearchTicketsDto {
  @JSONSchema({
    description: 'Only tickets in this status: open (being worked), pending (waiting on the customer) or closed.',
  })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;

  @JSONSchema({ description: 'Only tickets of this priority.' })
  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;

  @JSONSchema({ description: 'Only tickets of this customer, e.g. C-1001 (find ids with search_customers).' })
  @IsOptional()
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId?: string;

  @JSONSchema({ description: 'Only tickets assigned to this agent login, e.g. maria.lopez.' })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  assignee?: string;

  @JSONSchema({ description: 'true: only tickets no agent is assigned to; false: only assigned ones.' })
  @IsOptional()
  @IsBoolean()
  unassigned?: boolean;

  @JSONSchema({ description: 'Text found in the subject or description, case-insensitively, e.g. "VAT".' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  text?: string;

  @JSONSchema({ description: 'The most tickets to return.', default: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
