import { IsString, Matches, MaxLength, MinLength } from 'class-validator';

export class AddCommentDto {
  @Matches(/^T-\d{4,}$/, { message: 'ticketId must look like T-2001' })
  ticketId!: string;

  @IsString()
  @MinLength(2)
  @MaxLength(60)
  author!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(4000)
  body!: string;
}
