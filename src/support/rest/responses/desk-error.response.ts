import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of a refusal by a rule of the desk (404 `TicketNotFound`, 409 `TicketClosed`, …). */
export class DeskErrorResponse {
  @ApiProperty({ type: 'integer', example: 404 })
  statusCode!: number;

  @ApiProperty({ description: 'A stable name to branch on.', example: 'TicketNotFound' })
  error!: string;

  @ApiProperty({ example: 'No ticket T-9999.' })
  message!: string;

  @ApiPropertyOptional({ description: 'The ticket the error is about.', example: 'T-9999' })
  ticketId?: string;

  @ApiPropertyOptional({ description: 'The customer the error is about.', example: 'C-9999' })
  customerId?: string;
}
