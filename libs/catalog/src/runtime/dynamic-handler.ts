import { assignMetadata, type Type } from '@nestjs/common';
import { MCP_PARAM_ARGS_METADATA, McpParamType, type McpCallContext } from '#libs/core';

/** A handler given to `McpCatalog` at run time: the arguments (or variables) and the call context. */
export type McpDynamicHandler<A = Record<string, unknown>> = (args: A, context: McpCallContext) => unknown;

/**
 * Wraps a run-time handler in a one-method class, decorated as `@McpArgs()` / `@McpContext()`
 * would decorate it, so that it goes through exactly the path of decorated providers. Metadata
 * set on the handler function (`SetMetadata(key, value)(handler)`) is the class's: guards and
 * interceptors read it as they read a decorated provider's.
 */
export function dynamicHost(
  handler: McpDynamicHandler<never>,
  bindArgs: boolean,
): { hostClass: Type<object>; instance: object; methodName: string } {
  class DynamicMcpHandler {
    handle(...params: unknown[]): unknown {
      // Without an arguments parameter the context comes first (see the metadata below).
      return bindArgs
        ? handler(params[0] as never, params[1] as McpCallContext)
        : handler({} as never, params[0] as McpCallContext);
    }
  }
  for (const key of Reflect.getOwnMetadataKeys(handler))
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, handler), DynamicMcpHandler);
  let params = assignMetadata({}, McpParamType.CONTEXT, bindArgs ? 1 : 0);
  if (bindArgs) params = assignMetadata(params, McpParamType.ARGS, 0);
  Reflect.defineMetadata(MCP_PARAM_ARGS_METADATA, params, DynamicMcpHandler, 'handle');
  Reflect.defineMetadata(
    'design:paramtypes',
    bindArgs ? [Object, Object] : [Object],
    DynamicMcpHandler.prototype,
    'handle',
  );
  return { hostClass: DynamicMcpHandler, instance: new DynamicMcpHandler(), methodName: 'handle' };
}
