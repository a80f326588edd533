import { Type } from 'class-transformer';
import {
  getMetadataStorage,
  IsInt,
  IsOptional,
  IsString,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
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
    expect(tickets.$defs).toEqual({
      Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expect(customers.$defs).toEqual({
      Address_2: {
        type: 'object',
        properties: { street: { type: 'string' }, zip: { type: 'integer' } },
        required: ['street', 'zip'],
      },
    });
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

  it('refers a class-typed property under a custom validator to its own class; other classes accept anything', () => {
    @ValidatorConstraint({ name: 'deliverable' })
    class Deliverable implements ValidatorConstraintInterface {
      validate() {
        return true;
      }
    }
    function shipping(field: string) {
      class Address {
        @IsString() [field]!: string;
      }
      class ShipDto {
        @Validate(Deliverable) address!: Address;
        // No DTO behind these: no `$ref` to a schema that does not exist.
        @Validate(Deliverable) at!: Date;
        @IsOptional() @ValidateNested({ each: true }) parcels?: object[];
      }
      return ShipDto;
    }
    const factory = new DtoJsonSchemaFactory();
    const first = factory.create(shipping('city'));
    const second = factory.create(shipping('street'));
    expect(first.properties).toEqual({
      address: { $ref: '#/$defs/Address' },
      at: {},
      parcels: { type: 'array', items: {} },
    });
    expect(first.$defs).toEqual({
      Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    expect(second.properties!.address).toEqual({ $ref: '#/$defs/Address_2' });
    expect(second.$defs).toEqual({
      Address_2: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
    });
  });

  it('keeps @JSONSchema on classes and properties, nested ones included', () => {
    function feature(topic: string) {
      @JSONSchema({ description: `Where the ${topic} is` })
      class Place {
        @JSONSchema({ examples: ['Berlin'] }) @IsString() city!: string;
      }
      @JSONSchema({ description: `Finds ${topic}` })
      class SearchDto {
        @JSONSchema({ description: 'Free text' }) @IsString() text!: string;
        @IsOptional() @ValidateNested() @Type(() => Place) place?: Place;
      }
      return SearchDto;
    }
    const factory = new DtoJsonSchemaFactory();
    factory.create(feature('tickets'));
    const customers = factory.create(feature('customers'));
    expect(customers).toEqual({
      type: 'object',
      description: 'Finds customers',
      properties: { text: { type: 'string', description: 'Free text' }, place: { $ref: '#/$defs/Place_2' } },
      required: ['text'],
      $defs: {
        Place_2: {
          type: 'object',
          description: 'Where the customers is',
          properties: { city: { type: 'string', examples: ['Berlin'] } },
          required: ['city'],
        },
      },
    });
  });

  it('looks each DTO class up along its own parents, never across every class decorated so far (N DTOs: N look-ups, not N²)', () => {
    const dtoWithNested = () => {
      class Inner {
        @IsString() a!: string;
        @IsInt() b!: number;
      }
      class Dto {
        @IsString() s!: string;
        @IsOptional() @IsInt() n?: number;
        @ValidateNested() @Type(() => Inner) inner!: Inner;
      }
      return Dto;
    };
    // Counted rather than timed: the public look-up tests every class decorated so far, so each
    // call costs as many steps as there are DTOs; a look-up in the map by class costs one.
    const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<object, unknown[]> };
    const scanAll = jest.spyOn(getMetadataStorage(), 'getTargetValidationMetadatas');
    const byClass = jest.spyOn(storage.validationMetadatas, 'get');
    const iterated = jest.spyOn(storage.validationMetadatas, 'entries');
    const factory = new DtoJsonSchemaFactory();
    const lookUps = (count: number) => {
      const classes = Array.from({ length: count }, dtoWithNested);
      byClass.mockClear();
      for (const type of classes) factory.create(type);
      return byClass.mock.calls.length;
    };
    try {
      const small = lookUps(500);
      const large = lookUps(2000);
      expect(small).toBeGreaterThan(0);
      expect(large).toBe(4 * small);
      expect(scanAll).not.toHaveBeenCalled();
      expect(iterated).not.toHaveBeenCalled();
    } finally {
      scanAll.mockRestore();
      byClass.mockRestore();
      iterated.mockRestore();
    }
  });
});
