import { ForbiddenException, IntrinsicException, Logger, type CanActivate, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import type { ApplicationConfig, ExternalContextCreator } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { isObservable, lastValueFrom } from 'rxjs';
import type { CallContext } from './context/call-context';

/** A handler as the invoker calls it: the validated arguments and the call's context. */
export type NestHandler = (args: unknown, context: CallContext) => Promise<unknown>;

/** What Nest's external exception filter logs when no filter of the app handles an error. */
const exceptionsLogger = new Logger('ExceptionsHandler');
/** What Nest's pipeline answers when a guard says no. */
const FORBIDDEN_MESSAGE = 'Forbidden resource';

/**
 * A handler called as Nest's external context would call it, without its machinery, for an entry
 * no enhancer but the app's own guards applies to: no interceptor, pipe or exception filter — on
 * the method, its class or the app (global ones, `APP_*` providers) — no guard of the method or
 * class, and no pipe on a parameter. The app's guards (`APP_GUARD`, `useGlobalGuards`) run first,
 * in order, with the same execution context (a refusal is Nest's `ForbiddenException`); parameters
 * are filled by the same extractors (`@McpArgs`, `@McpContext`, custom parameter decorators); an
 * Observable is awaited to its last value; an unexpected error is logged by the same logger.
 *
 * @returns undefined when anything else applies: the entry goes through Nest's pipeline
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
  const hostClass = instance.constructor as Type;
  for (const key of [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA])
    if (declared(key, hostClass) || declared(key, method)) return undefined;
  if (
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
  // As Nest's guards context keeps them: what has a `canActivate`, read once.
  const guards = (config.getGlobalGuards() as (CanActivate | undefined)[]).filter(
    (guard): guard is CanActivate => typeof guard?.canActivate === 'function',
  );

  return async (args, context) => {
    try {
      if (guards.length > 0 && !(await activates(guards, [args, context], hostClass, method, contextType)))
        throw new ForbiddenException(FORBIDDEN_MESSAGE);
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

/** Each guard in turn, as Nest's `GuardsConsumer` asks them: the first that says no ends it. */
async function activates(
  guards: CanActivate[],
  args: unknown[],
  hostClass: Type,
  method: (...args: unknown[]) => unknown,
  contextType: string,
): Promise<boolean> {
  const context = new ExecutionContextHost(args, hostClass, method);
  context.setType(contextType);
  for (const guard of guards) {
    const answer = guard.canActivate(context);
    if (answer === true) continue;
    if (answer === false) return false;
    if (!(isObservable(answer) ? await lastValueFrom(answer) : await answer)) return false;
  }
  return true;
}

function declared(key: string, target: object): boolean {
  const enhancers: unknown = Reflect.getMetadata(key, target);
  return Array.isArray(enhancers) && enhancers.length > 0;
}
