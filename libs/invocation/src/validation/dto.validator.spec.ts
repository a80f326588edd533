import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { JsonSchemaFactory } from '#libs/catalog';
import { compileDtoValidator } from './dto.validator';

class LineDto {
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

class SearchDto {
  @IsOptional()
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId?: string;

  @IsOptional()
  @IsIn(['open', 'closed'])
  status?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines?: LineDto[];
}

const validate = compileDtoValidator(SearchDto, new JsonSchemaFactory().create(SearchDto));

describe('compileDtoValidator', () => {
  it('reports a value of the wrong type with its type error alone, not every constraint it fails', () => {
    expect(validate({ limit: '3' })).toEqual({ ok: false, issues: ['limit: must be an integer, not the string "3"'] });
    expect(validate({ customerId: 1001 })).toEqual({
      ok: false,
      issues: ['customerId: must be a string, not the number 1001'],
    });
  });

  it('keeps the constraint messages of values of the right type, and reports every property at once', () => {
    expect(validate({ limit: 300, customerId: 'C-1', status: 'lost' })).toEqual({
      ok: false,
      issues: [
        'customerId: customerId must look like C-1001',
        'status: status must be one of the following values: open, closed',
        'limit: limit must not be greater than 100',
      ],
    });
  });

  it('names array items and nested properties, typed or not', () => {
    expect(
      validate({
        lines: [
          { sku: 'a', quantity: 1 },
          { sku: 7, quantity: 0 },
        ],
      }),
    ).toEqual({
      ok: false,
      issues: [
        'lines[1].sku: must be a string, not the number 7',
        'lines[1].quantity: quantity must not be less than 1',
      ],
    });
    expect(validate({ lines: 'all of them' })).toEqual({
      ok: false,
      issues: ['lines: must be an array, not the string "all of them"'],
    });
  });

  it('hands the tool a DTO instance when the arguments are valid', () => {
    const result = validate({ limit: 5 });
    expect(result.ok && result.value).toBeInstanceOf(SearchDto);
  });
});
