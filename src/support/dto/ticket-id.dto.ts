import { Matches } from 'class-validator';

export class TicketIdDto {
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;
}
