import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Sensitive } from '#libs/core';
import { DtoJsonSchemaFactory } from './dto-json-schema';

/** Two modules of an app, each with its own `SearchDto` and `Address`: same names, other shapes. */
function ticketsModule() {
  class Address {
    @IsString() city!: string;
  }
  class SearchDto {
    @IsString() status!: string;
    @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
  }
  return SearchDto;
}
function customersModule() {
  class Address {
    @IsString() street!: string;
    @IsInt() zip!: number;
  }
  class SearchDto {
    @IsString() @Sensitive() email!: string;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Address) addresses?: Address[];
  }
  return SearchDto;
}

describe('DtoJsonSchemaFactory', () => {
  it('gives two DTO classes of the same name a schema each, nested classes included', () => {
    const factory = new DtoJsonSchemaFactory();
    const tickets = factory.create(ticketsModule());
    const customers = factory.create(customersModule());
    expect(Object.keys(tickets.properties!)).toEqual(['status', 'address']);
    expect(Object.keys(customers.properties!)).toEqual(['email', 'addresses']);
    expect(tickets.properties!.address).toEqual({ $ref: '#/$defs/Address' });
    expect(customers.properties!.addresses).toEqual({ type: 'array', items: { $ref: '#/$defs/Address_2' } });
    expect(tickets.$defs).toEqual({ Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } });
    expect(customers.$defs).toEqual({ Address_2: { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'integer' } }, required: ['street', 'zip'] } });
    expect(customers.properties!.email).toMatchObject({ type: 'string', 'x-sensitive': true });
  });

  it('includes inherited properties, and generates each class once', () => {
    class Base {
      @IsString() tenant!: string;
    }
    class Child extends Base {
      @IsInt() limit!: number;
    }
    const factory = new DtoJsonSchemaFactory();
    const first = factory.create(Child);
    expect(Object.keys(first.properties!).sort()).toEqual(['limit', 'tenant']);
    expect(factory.create(Child).properties).toBe(first.properties);
  });
});
