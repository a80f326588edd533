import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from '../support.types';

/** Every filter is optional; the ones given must all match. */
export class SearchTicketsDto {
  @JSONSchema({
    description: 'Only tickets in this status: open (being worked), pending (waiting on the customer) or closed.',
  })
  @ApiPropertyOptional({
    description: 'Only tickets in this status: open (being worked), pending (waiting on the customer) or closed.',
    enum: TICKET_STATUSES,
    enumName: 'TicketStatus',
  })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;

  @JSONSchema({ description: 'Only tickets of this priority.' })
  @ApiPropertyOptional({
    description: 'Only tickets of this priority.',
    enum: TICKET_PRIORITIES,
    enumName: 'TicketPriority',
  })
  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;

  @JSONSchema({ description: 'Only tickets of this customer, e.g. C-1001 (find ids with search_customers).' })
  @ApiPropertyOptional({ description: 'Only tickets of this customer, e.g. C-1001.', pattern: '^C-\\d{4}$' })
  @IsOptional()
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId?: string;

  @JSONSchema({ description: 'Only tickets assigned to this agent login, e.g. maria.lopez.' })
  @ApiPropertyOptional({ description: 'Only tickets assigned to this agent login, e.g. maria.lopez.', maxLength: 60 })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  assignee?: string;

  @JSONSchema({ description: 'true: only tickets no agent is assigned to; false: only assigned ones.' })
  @ApiPropertyOptional({
    description: 'true: only tickets no agent is assigned to; false: only assigned ones.',
    type: Boolean,
  })
  @IsOptional()
  @IsBoolean()
  unassigned?: boolean;

  @JSONSchema({ description: 'Text found in the subject or description, case-insensitively, e.g. "VAT".' })
  @ApiPropertyOptional({
    description: 'Text found in the subject or description, case-insensitively, e.g. "VAT".',
    maxLength: 100,
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  text?: string;

  @JSONSchema({ description: 'The most tickets to return.', default: 20 })
  @ApiPropertyOptional({
    description: 'The most tickets to return.',
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}
