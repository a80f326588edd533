import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

export class AddCommentDto {
  @JSONSchema({ description: 'The ticket to comment on, e.g. T-2001.' })
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;

  @JSONSchema({ description: 'Who writes the comment: an agent login such as maria.lopez.' })
  @IsString()
  @MinLength(2)
  @MaxLength(60)
  author!: string;

  @JSONSchema({ description: 'The comment, shown to agents working the ticket.' })
  @IsString()
  @MinLength(1)
  @MaxLength(4000)
  body!: string;
}
