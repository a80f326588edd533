import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp-host';

export const NOOP_TOOL_COUNT = 100;

const NOOP_INPUT = { type: 'object', properties: { value: { type: 'string' } } };

/**
 * 100 tools `noop_0` … `noop_99` that make the catalog realistically large. Writing 100 methods
 * by hand would hide the point, so the methods are defined in a loop below and decorated exactly
 * as the compiler decorates a hand-written
 *
 *   @McpTool({ name: 'noop_7', description: '…', input: NOOP_INPUT })
 *   noop_7(@McpArgs() args: Record<string, unknown>) { return 'ok'; }
 */
@Injectable()
export class NoopTools {}

function defineNoopTool(index: number): void {
  const prototype = NoopTools.prototype;
  const name = `noop_${index}`;
  Object.defineProperty(prototype, name, { value: (_args: unknown) => 'ok', writable: true, configurable: true });
  // What `emitDecoratorMetadata` records for an `args: Record<string, unknown>` parameter.
  Reflect.defineMetadata('design:paramtypes', [Object], prototype, name);
  McpArgs()(prototype, name, 0);
  McpTool({ name, description: `Does nothing (catalog filler ${index})`, input: NOOP_INPUT })(
    prototype,
    name,
    Object.getOwnPropertyDescriptor(prototype, name)!,
  );
}

for (let index = 0; index < NOOP_TOOL_COUNT; index++) defineNoopTool(index);
