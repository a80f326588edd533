import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { CUSTOMER_TIERS, type CustomerTier } from '../support.types';

export class SearchCustomersDto {
  @JSONSchema({
    description:
      'Text found in the name or company (or the email, for callers cleared for personal data), case-insensitively, e.g. "contoso". Leave out to list customers.',
  })
  @ApiPropertyOptional({
    description:
      'Text found in the name or company (or the email, for callers cleared for personal data), case-insensitively, e.g. "contoso".',
    maxLength: 100,
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;

  @JSONSchema({ description: 'Only customers on this support tier.' })
  @ApiPropertyOptional({
    description: 'Only customers on this support tier.',
    enum: CUSTOMER_TIERS,
    enumName: 'CustomerTier',
  })
  @IsOptional()
  @IsIn(CUSTOMER_TIERS)
  tier?: CustomerTier;

  @JSONSchema({ description: 'The most customers to return.', default: 10 })
  @ApiPropertyOptional({
    description: 'The most customers to return.',
    type: 'integer',
    minimum: 1,
    maximum: 50,
    default: 10,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}
