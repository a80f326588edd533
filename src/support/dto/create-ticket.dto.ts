import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TICKET_PRIORITIES, type TicketPriority } from '../support.types';

export class CreateTicketDto {
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;

  @IsString()
  @MinLength(5)
  @MaxLength(120)
  subject!: string;

  @IsString()
  @MinLength(10)
  @MaxLength(4000)
  description!: string;

  @IsIn(TICKET_PRIORITIES)
  priority!: TicketPriority;
}
