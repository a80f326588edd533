import 'reflect-metadata';
import { Exclude, Transform, Type, plainToInstance } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import * as classValidator from 'class-validator';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  validateSync,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { compileDtoFastPath } from './dto-fast-path';

@ValidatorConstraint({ name: 'even' })
class IsEven implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
}

@ValidatorConstraint({ name: 'slow', async: true })
class SlowCheck implements ValidatorConstraintInterface {
  validate(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

class TicketDto {
  @IsString()
  @Matches(/^T-\d{4}$/)
  id!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  priority?: number;

  @IsOptional()
  @IsIn(['open', 'closed'])
  status?: string;

  @IsBoolean()
  @IsOptional()
  urgent?: boolean;

  @ValidateIf((dto: TicketDto) => dto.status === 'closed')
  @MinLength(3)
  reason?: string;

  @IsOptional()
  @Validate(IsEven)
  @Validate(SlowCheck)
  team?: number;

  @IsDefined()
  requester!: unknown;
}

class LineDto {
  @IsNumber()
  quantity!: number;
}

class OrderDto {
  @ValidateNested()
  @Type(() => LineDto)
  line!: LineDto;
}

class TrimmedDto {
  @Transform(({ value }: { value: string }) => value.trim())
  @IsString()
  name!: string;
}

class HiddenDto {
  @IsString()
  name!: string;

  @Exclude()
  secret?: string;
}

class GroupedDto {
  @IsString({ groups: ['admin'] })
  name!: string;
}

class EachDto {
  @IsNumber({}, { each: true })
  values!: number[];
}

const fastPathOf = (dto: new () => object) => compileDtoFastPath(dto, classValidator, defaultMetadataStorage);

/** What `compileDtoValidator`'s full way gives: the instance, or undefined when it has errors. */
function fullWay(dto: new () => object, value: object): object | undefined {
  const instance = plainToInstance(dto, value);
  return validateSync(instance, { forbidUnknownValues: false }).length === 0 ? instance : undefined;
}

describe('compileDtoFastPath', () => {
  const ticket = fastPathOf(TicketDto)!;

  it.each([
    ['the required properties only', { id: 'T-2001', requester: 'ana' }],
    [
      'every property',
      { id: 'T-2001', priority: 3, status: 'closed', urgent: true, reason: 'done', team: 4, requester: 1 },
    ],
    ['null optional properties', { id: 'T-2001', priority: null, status: null, team: null, requester: 'ana' }],
    ['a reason skipped by its condition', { id: 'T-2001', status: 'open', reason: 'x', requester: 'ana' }],
  ])('gives the instance plainToInstance + validateSync give for %s', (_, value) => {
    const fast = ticket(value);
    expect(fast).toBeInstanceOf(TicketDto);
    expect(fast).toEqual(fullWay(TicketDto, value));
  });

  it.each([
    ['a wrong type', { id: 'T-2001', priority: '3', requester: 'ana' }],
    ['a value out of range', { id: 'T-2001', priority: 9, requester: 'ana' }],
    ['a pattern not matched', { id: 'ticket', requester: 'ana' }],
    ['a required property missing', { priority: 3, requester: 'ana' }],
    ['an undefined IsDefined property', { id: 'T-2001' }],
    ['a conditional property that fails', { id: 'T-2001', status: 'closed', reason: 'x', requester: 'ana' }],
    ['a custom constraint that fails', { id: 'T-2001', team: 3, requester: 'ana' }],
  ])('leaves %s to the full way, which refuses it', (_, value) => {
    expect(ticket(value)).toBeUndefined();
    expect(fullWay(TicketDto, value)).toBeUndefined();
  });

  it.each([
    ['an object value (copied deeply by class-transformer)', { id: 'T-2001', requester: { name: 'ana' } }],
    ['an array value', { id: 'T-2001', requester: ['ana'] }],
    ['a key the DTO does not declare', { id: 'T-2001', requester: 'ana', extra: 1 }],
    ['a __proto__ key', JSON.parse('{"id":"T-2001","requester":"ana","__proto__":{"x":1}}') as object],
  ])('leaves %s to the full way', (_, value) => {
    expect(ticket(value)).toBeUndefined();
  });

  it('skips asynchronous constraints as validateSync does', () => {
    const value = { id: 'T-2001', team: 4, requester: 'ana' };
    expect(ticket(value)).toEqual(fullWay(TicketDto, value));
  });

  it.each([
    ['nested validation', OrderDto],
    ['a @Transform', TrimmedDto],
    ['an @Exclude', HiddenDto],
    ['validation groups', GroupedDto],
    ['`each` constraints', EachDto],
  ])('is not compiled for a DTO with %s', (_, dto) => {
    expect(fastPathOf(dto)).toBeUndefined();
  });
});
