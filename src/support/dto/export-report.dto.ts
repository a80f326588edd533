import { IsIn, IsOptional } from 'class-validator';
import { TICKET_STATUSES, type TicketStatus } from '../support.types';

export class ExportReportDto {
  /** Only tickets in this status; all tickets when left out. */
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;
}
