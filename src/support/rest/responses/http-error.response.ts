import { ApiProperty } from '@nestjs/swagger';

/** Nest's standard error body: 400 (one message per failing field), 401, 403, 429. */
export class HttpErrorResponse {
  @ApiProperty({ type: 'integer', example: 400 })
  statusCode!: number;

  @ApiProperty({
    description: 'What is wrong; for a 400, one message per failing field.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    example: ['subject must be longer than or equal to 5 characters'],
  })
  message!: string | string[];

  @ApiProperty({ example: 'Bad Request' })
  error!: string;
}
