import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CUSTOMER_TIERS, type CustomerTier } from '../support.types';

export class SearchCustomersDto {
  /** Matched against name, email and company, case-insensitively. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  query?: string;

  @IsOptional()
  @IsIn(CUSTOMER_TIERS)
  tier?: CustomerTier;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}
