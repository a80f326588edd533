import type { Type } from '@nestjs/common';
import { MCP_PARAM_ARGS_METADATA, McpParamType, type McpCacheHints } from '#libs/core';
import { CatalogMessages } from '../messages/catalog.messages';
import { OPEN_ACCESS, type ArgsBinding, type RegisteredHandler } from './registered-handler.interface';

type ParamMetadata = Record<string, { index: number; data?: string }>;
type Report = (message: { problem: string; fix: string }) => void;

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Symbol, BigInt, Function]);

/**
 * Reads how a handler's parameters are bound (`@McpArgs`, `@McpContext`), the DTO class of a
 * whole-arguments `@McpArgs()` parameter if any, and reports parameters nothing can supply.
 */
export function inspectHandlerParameters(
  hostClass: Type<object>,
  methodName: string,
  report: Report,
): { bindings: ArgsBinding[]; dtoType: Type<object> | undefined } {
  const metadata: ParamMetadata = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, hostClass, methodName) ?? {};
  const paramTypes: unknown[] = Reflect.getMetadata('design:paramtypes', hostClass.prototype, methodName) ?? [];
  const method = (hostClass.prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
  const arity = Math.max(paramTypes.length, method.length);
  const bound = new Set<number>();
  const bindings: ArgsBinding[] = [];
  let dtoType: Type<object> | undefined;

  for (const [key, param] of Object.entries(metadata)) {
    bound.add(param.index);
    if (!key.startsWith(`${McpParamType.ARGS}:`)) continue;
    bindings.push({ index: param.index, ...(param.data !== undefined && { property: param.data }) });
    if (param.data !== undefined) continue;
    const type = paramTypes[param.index];
    if (PRIMITIVES.has(type)) report(CatalogMessages.primitiveArgs((type as Type).name));
    else if (typeof type === 'function' && type !== Object) dtoType = type as Type<object>;
  }
  for (let index = 0; index < arity; index++) {
    if (!bound.has(index)) report(CatalogMessages.unboundParameter(index));
  }
  return { bindings, dtoType };
}

/** The fields every registered handler carries, from its candidate and its parameter bindings. */
export function handlerFields(
  candidate: {
    hostClass: Type<object>;
    methodName: string;
    instance: object | undefined;
    access?: RegisteredHandler['access'];
  },
  where: string,
  argsBindings: ArgsBinding[],
  cache?: McpCacheHints,
): Omit<RegisteredHandler, 'key' | 'definition'> {
  const { hostClass, methodName, instance } = candidate;
  return {
    where,
    hostClass,
    methodName,
    instance,
    argsBindings,
    access: candidate.access ?? OPEN_ACCESS,
    ...(cache && { cache }),
  };
}
