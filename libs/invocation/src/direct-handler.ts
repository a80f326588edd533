import { IntrinsicException, Logger } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import type { ApplicationConfig, ExternalContextCreator } from '@nestjs/core';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { isObservable, lastValueFrom } from 'rxjs';
import type { CallContext } from './context/call-context';

/** A handler as the invoker calls it: the validated arguments and the call's context. */
export type NestHandler = (args: unknown, context: CallContext) => Promise<unknown>;

/** What Nest's external exception filter logs when no filter of the app handles an error. */
const exceptionsLogger = new Logger('ExceptionsHandler');

/**
 * A handler called as Nest's external context would call it, without its machinery, for an entry
 * no enhancer applies to: no guard, interceptor, pipe or exception filter — on the method, its
 * class or the app (global ones, `APP_*` providers) — and no pipe on a parameter. Parameters are
 * filled by the same extractors (`@McpArgs`, `@McpContext`, custom parameter decorators), an
 * Observable is awaited to its last value, and an unexpected error is logged by the same logger.
 *
 * @returns undefined when anything applies: the entry goes through Nest's pipeline
 */
export function directHandler(
  contextCreator: ExternalContextCreator,
  config: ApplicationConfig,
  instance: object,
  method: (...args: unknown[]) => unknown,
  methodName: string,
  paramsKey: string,
  paramsFactory: ParamsFactory,
  contextType: string,
): NestHandler | undefined {
  const hostClass = instance.constructor;
  for (const key of [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA])
    if (declared(key, hostClass) || declared(key, method)) return undefined;
  if (
    config.getGlobalGuards().length > 0 ||
    config.getGlobalRequestGuards().length > 0 ||
    config.getGlobalInterceptors().length > 0 ||
    config.getGlobalRequestInterceptors().length > 0 ||
    config.getGlobalPipes().length > 0 ||
    config.getGlobalRequestPipes().length > 0 ||
    config.getGlobalFilters().length > 0 ||
    config.getGlobalRequestFilters().length > 0
  )
    return undefined;
  const { argsLength, getParamsMetadata } = contextCreator.getMetadata(
    instance,
    methodName,
    paramsKey,
    paramsFactory,
    contextType,
  );
  const params = getParamsMetadata(contextCreator.getContextModuleKey(hostClass)) ?? [];
  if (params.some((param) => param.pipes.length > 0)) return undefined;

  return async (args, context) => {
    try {
      let returned: unknown;
      if (params.length === 0) returned = await method.call(instance, args, context);
      else {
        const values = new Array<unknown>(argsLength).fill(undefined);
        for (const param of params) values[param.index] = param.extractValue(args, context);
        returned = await method.apply(instance, values);
      }
      return isObservable(returned) ? await lastValueFrom(returned) : returned;
    } catch (error) {
      if (error instanceof Error && !(error instanceof IntrinsicException)) exceptionsLogger.error(error);
      throw error;
    }
  };
}

function declared(key: string, target: object): boolean {
  const enhancers: unknown = Reflect.getMetadata(key, target);
  return Array.isArray(enhancers) && enhancers.length > 0;
}
