import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiProperty } from '@nestjs/swagger';
import { TICKET_PRIORITIES, type TicketPriority } from '../support.types';

export class CreateTicketDto {
  @JSONSchema({ description: 'The customer the ticket is for, e.g. C-1001 (find ids with search_customers).' })
  @ApiProperty({
    description: 'The customer the ticket is for, e.g. C-1001.',
    pattern: '^C-\\d{4}$',
    example: 'C-1001',
  })
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;

  @JSONSchema({ description: 'A one-line summary of the problem, as the customer would recognise it.' })
  @ApiProperty({
    description: 'A one-line summary of the problem, as the customer would recognise it.',
    minLength: 5,
    maxLength: 120,
    example: 'Invoice shows the wrong VAT number',
  })
  @IsString()
  @MinLength(5)
  @MaxLength(120)
  subject!: string;

  @JSONSchema({ description: 'What happens, since when, and what the customer already tried.' })
  @ApiProperty({
    description: 'What happens, since when, and what the customer already tried.',
    minLength: 10,
    maxLength: 4000,
    example: 'Since the March invoice the VAT number is the old one; the customer updated it twice.',
  })
  @IsString()
  @MinLength(10)
  @MaxLength(4000)
  description!: string;

  @JSONSchema({
    description:
      'urgent: the customer cannot work; high: a key feature is broken; normal: the default; low: questions and requests.',
  })
  @ApiProperty({
    description:
      'urgent: the customer cannot work; high: a key feature is broken; normal: the default; low: questions and requests.',
    enum: TICKET_PRIORITIES,
    enumName: 'TicketPriority',
  })
  @IsIn(TICKET_PRIORITIES)
  priority!: TicketPriority;
}
