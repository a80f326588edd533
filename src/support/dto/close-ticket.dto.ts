import { IsString, Matches, MaxLength, MinLength } from 'class-validator';

export class CloseTicketDto {
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;

  /** What fixed it; kept on the ticket for the customer and for reporting. */
  @IsString()
  @MinLength(5)
  @MaxLength(1000)
  resolution!: string;
}
