import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TICKET_PRIORITIES, type TicketPriority } from '../support.types';

export class CreateTicketDto {
  @JSONSchema({ description: 'The customer the ticket is for, e.g. C-1001 (find ids with search_customers).' })
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;

  @JSONSchema({ description: 'A one-line summary of the problem, as the customer would recognise it.' })
  @IsString()
  @MinLength(5)
  @MaxLength(120)
  subject!: string;

  @JSONSchema({ description: 'What happens, since when, and what the customer already tried.' })
  @IsString()
  @MinLength(10)
  @MaxLength(4000)
  description!: string;

  @JSONSchema({
    description:
      'urgent: the customer cannot work; high: a key feature is broken; normal: the default; low: questions and requests.',
  })
  @IsIn(TICKET_PRIORITIES)
  priority!: TicketPriority;
}
