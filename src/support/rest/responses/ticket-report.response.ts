import { ApiProperty } from '@nestjs/swagger';

/** What `GET /api/reports/tickets` answers (what `export_ticket_report` reports). */
export class TicketReportResponse {
  @ApiProperty({ description: 'How many tickets the report holds.', type: 'integer', example: 20 })
  count!: number;

  @ApiProperty({ description: 'Tickets per status.', example: '12 open, 4 pending, 4 closed' })
  summary!: string;

  @ApiProperty({ description: 'The report as CSV, a header line first.' })
  csv!: string;
}
