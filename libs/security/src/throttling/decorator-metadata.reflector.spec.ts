import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DecoratorMetadataReflector } from './decorator-metadata.reflector';

@SetMetadata('limit', 5)
class Desk {
  @SetMetadata('limit', 2)
  busy() {}

  quiet() {}
}

class Branch extends Desk {}

describe('DecoratorMetadataReflector', () => {
  const reflector = new Reflector();
  const memoized = new DecoratorMetadataReflector(reflector);

  it.each([
    ['the handler over its class', Desk.prototype.busy, Desk, 2],
    ['the class when the handler says nothing', Desk.prototype.quiet, Desk, 5],
    ['a subclass sharing the handler', Desk.prototype.quiet, Branch, 5],
  ])('answers as Reflector does: %s', (_, handler, classRef, expected) => {
    expect(memoized.getAllAndOverride('limit', [handler, classRef])).toBe(expected);
    expect(memoized.getAllAndOverride('limit', [handler, classRef])).toBe(
      reflector.getAllAndOverride('limit', [handler, classRef]),
    );
  });

  it('reads each handler, class and key once', () => {
    const reads = jest.spyOn(reflector, 'getAllAndOverride');
    for (let call = 0; call < 3; call++) memoized.getAllAndOverride('skip', [Desk.prototype.busy, Desk]);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(memoized.getAllAndOverride('skip', [Desk.prototype.busy, Desk])).toBeUndefined();
    reads.mockRestore();
  });

  it('passes other target lists through unchanged', () => {
    expect(memoized.getAllAndOverride('limit', [Desk])).toBe(5);
  });
});
