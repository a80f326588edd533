import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { CUSTOMER_TIERS, type CustomerTier } from '../support.types';

export class SearchCustomersDto {
  @JSONSchema({
    description:
      'Text found in the name, email or company, case-insensitively, e.g. "contoso". Leave out to list customers.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;

  @JSONSchema({ description: 'Only customers on this support tier.' })
  @IsOptional()
  @IsIn(CUSTOMER_TIERS)
  tier?: CustomerTier;

  @JSONSchema({ description: 'The most customers to return.', default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}
