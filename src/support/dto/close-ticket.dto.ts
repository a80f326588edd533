import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiProperty } from '@nestjs/swagger';

export class CloseTicketDto {
  @JSONSchema({ description: 'The ticket to close, e.g. T-2001.' })
  @ApiProperty({ description: 'The ticket to close, e.g. T-2001.', pattern: '^T-\\d{4,}$', example: 'T-2001' })
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;

  @JSONSchema({
    description: 'What fixed the problem, written for the customer; kept on the ticket and used in reports.',
  })
  @ApiProperty({
    description: 'What fixed the problem, written for the customer; kept on the ticket and used in reports.',
    minLength: 5,
    maxLength: 1000,
    example: 'Re-issued the invoice with the VAT number.',
  })
  @IsString()
  @MinLength(5)
  @MaxLength(1000)
  resolution!: string;
}
