import { ApiProperty } from '@nestjs/swagger';

/** What `DELETE /api/tickets/:ticketId` answers. */
export class DeletedTicketResponse {
  @ApiProperty({ example: 'T-2001' })
  id!: string;

  @ApiProperty({ description: 'Always true: the ticket is gone.', enum: [true] })
  deleted!: true;
}
