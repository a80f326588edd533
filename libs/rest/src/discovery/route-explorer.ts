import { RequestMethod, type Type } from '@nestjs/common';
import { MODULE_PATH, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { RestMethod } from '../openapi/rest-operation';
import type { NestRoute } from './nest-route';

const METHODS: Partial<Record<RequestMethod, RestMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
};

/**
 * Lists the routes of the application's controllers with the paths they are served on (global
 * prefix, `RouterModule` path, controller and method paths; the first when several are given),
 * in OpenAPI's template form. `@All()` and the WebDAV verbs name no single OpenAPI operation and
 * are not listed.
 */
export function exploreRoutes(
  modules: ModulesContainer,
  config: ApplicationConfig,
  include: readonly Type[] | undefined,
): NestRoute[] {
  const scanner = new MetadataScanner();
  const prefix = config.getGlobalPrefix();
  const routes: NestRoute[] = [];
  for (const module of modules.values()) {
    if (include && !include.includes(module.metatype as Type)) continue;
    const modulePath = modulePathOf(modules, module.metatype);
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<object> | undefined;
      if (!controller?.prototype) continue;
      const controllerPath = firstPath(Reflect.getMetadata(PATH_METADATA, controller));
      for (const methodName of scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[methodName] as object;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const routePath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (requestMethod === undefined || routePath === undefined) continue;
        const method = METHODS[requestMethod];
        if (!method) continue;
        routes.push({
          controller,
          methodName,
          where: `${controller.name}.${methodName}`,
          method,
          path: openApiPath([prefix, modulePath, controllerPath, firstPath(routePath)]),
          module: module.metatype as Type<unknown>,
        });
      }
    }
  }
  return routes;
}

function modulePathOf(modules: ModulesContainer, metatype: unknown): string {
  const own = Reflect.getMetadata(MODULE_PATH + modules.applicationId, metatype as object) as string | undefined;
  return own ?? (Reflect.getMetadata(MODULE_PATH, metatype as object) as string | undefined) ?? '';
}

function firstPath(path: string | string[] | undefined): string {
  return (Array.isArray(path) ? path[0] : path) ?? '';
}

/** Joins path parts as Nest does and writes `:param` as `{param}`: `/api/tickets/{ticketId}`. */
export function openApiPath(parts: readonly string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/^:(\w+)$/, '{$1}'))
    .join('/');
  return `/${joined}`;
}
