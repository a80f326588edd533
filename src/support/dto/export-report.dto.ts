import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { REPORT_COLUMNS, TICKET_STATUSES, type ReportColumn, type TicketStatus } from '../support.types';

export class ExportReportDto {
  @JSONSchema({ description: 'Only tickets in this status; every ticket when left out.' })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;

  @JSONSchema({ description: 'The CSV columns, in this order; all of them when left out.' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(REPORT_COLUMNS, { each: true })
  columns?: ReportColumn[];
}
