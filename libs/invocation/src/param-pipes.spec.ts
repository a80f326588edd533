import { ParseIntPipe, type PipeTransform } from '@nestjs/common';
import { ModulesContainer, type ModuleRef } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA, McpArgs, McpContext } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { ParamPipes } from './param-pipes';

class DoublePipe implements PipeTransform<number, number> {
  transform(value: number) {
    return value * 2;
  }
}

class Tools {
  withClass(@McpArgs('n', DoublePipe) n: number) {
    return n;
  }
  withInstance(@McpArgs('n', new ParseIntPipe()) n: number, @McpContext() _context: unknown) {
    return n;
  }
}

/** A container where no pipe is registered: every pipe class is made with `create`. */
function setup() {
  const create = jest.fn(async (type: new () => PipeTransform) => new type());
  const moduleRef = {
    get: () => {
      throw new Error('not registered');
    },
    create,
  } as unknown as ModuleRef;
  const handler = (methodName: keyof Tools) =>
    ({
      where: `Tools.${methodName}`,
      hostClass: Tools,
      methodName,
      instance: new Tools(),
    }) as unknown as RegisteredHandler;
  return { create, pipes: new ParamPipes(moduleRef, new ModulesContainer()), handler };
}

describe('ParamPipes', () => {
  it('makes the pipe classes of a handler once, however many calls ask at the same time', async () => {
    const { create, pipes, handler } = setup();
    const ref = handler('withClass');
    expect(pipes.keyOf(ref)).toBeUndefined();
    const keys = await Promise.all([pipes.resolve(ref), pipes.resolve(ref), pipes.resolve(ref)]);
    expect(create).toHaveBeenCalledTimes(1);
    expect(new Set(keys).size).toBe(1);
    // Known without waiting from now on: the per-call path does not await it again.
    expect(pipes.keyOf(ref)).toBe(keys[0]);
    const resolved = Reflect.getMetadata(keys[0], Tools, 'withClass');
    expect(Object.values(resolved)).toEqual([
      expect.objectContaining({ index: 0, data: 'n', pipes: [expect.any(DoublePipe)] }),
    ]);
  });

  it("leaves a handler without pipe classes on its decorators' own metadata", async () => {
    const { create, pipes, handler } = setup();
    expect(await pipes.resolve(handler('withInstance'))).toBe(MCP_PARAM_ARGS_METADATA);
    expect(create).not.toHaveBeenCalled();
  });
});
