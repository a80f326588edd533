import { IsIn, IsOptional } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TICKET_STATUSES, type TicketStatus } from '../support.types';

export class StatusFilterDto {
  @JSONSchema({ description: 'Only tickets in this status; every ticket when left out.' })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;
}
