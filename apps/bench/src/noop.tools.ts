import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from '#libs/core';

export const NOOP_TOOL_COUNT = 100;

const NOOP_INPUT = { type: 'object', properties: { value: { type: 'string' } } };

/**
 * 100 tools `noop_0` … `noop_99` that make the catalog realistically large. Writing 100 methods
 * by hand would hide the point, so the methods are defined in a loop and decorated exactly as
 * `@McpTool(...)` / `@McpArgs()` would decorate hand-written ones.
 */
@Injectable()
export class NoopTools {}

for (let index = 0; index < NOOP_TOOL_COUNT; index++) {
  const name = `noop_${index}`;
  Object.defineProperty(NoopTools.prototype, name, { value: () => 'ok', writable: true, configurable: true });
  Reflect.defineMetadata('design:paramtypes', [Object], NoopTools.prototype, name);
  McpArgs()(NoopTools.prototype, name, 0);
  McpTool({ name, description: `Does nothing (catalog filler ${index})`, input: NOOP_INPUT })(
    NoopTools.prototype,
    name,
    Object.getOwnPropertyDescriptor(NoopTools.prototype, name)!,
  );
}
