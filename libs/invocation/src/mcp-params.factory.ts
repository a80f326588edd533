import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { McpParamType } from '#libs/core';

/**
 * Fills `@McpArgs()` / `@McpContext()` parameters from the arguments the invoker passes to the
 * Nest-wrapped handler: `[validatedArgs, callContext]`.
 */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    switch (type) {
      case McpParamType.ARGS: {
        const value = args[0] as Record<string, unknown> | undefined;
        return typeof data === 'string' ? argumentNamed(value, data) : value;
      }
      case McpParamType.CONTEXT:
        return args[1];
      case McpParamType.CALLER:
        return (args[1] as { caller?: unknown } | undefined)?.caller;
      default:
        return undefined;
    }
  }
}

/**
 * The argument `name` of `value`: its own property, or one its class gives (a DTO's getter); never
 * a member of Object.prototype (`@McpArgs('constructor')` with no `constructor` sent is undefined).
 */
function argumentNamed(value: Record<string, unknown> | undefined, name: string): unknown {
  if (value === undefined || value === null) return undefined;
  return Object.hasOwn(value, name) || !(name in Object.prototype) ? value[name] : undefined;
}
