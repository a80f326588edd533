import { RequestMethod, VERSION_NEUTRAL, VersioningType, type Type } from '@nestjs/common';
import { MODULE_PATH, METHOD_METADATA, PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, MetadataScanner, ModulesContainer } from '@nestjs/core';
// Nest's own path builder (its exports map opens it): global prefix and its exclusions, URI
// versions and module paths joined exactly as the router registers them.
import { RoutePathFactory } from '@nestjs/core/router/route-path-factory.js';
import type { RestMethod } from '../openapi/rest-operation';
import type { NestRoute } from './nest-route';

/** A route's version as `@Version` / `@Controller({ version })` give it (not exported by `@nestjs/common`). */
type VersionValue = string | typeof VERSION_NEUTRAL | Array<string | typeof VERSION_NEUTRAL>;

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
 * Lists the routes of the application's controllers with the paths they are served on, built
 * by Nest's own `RoutePathFactory` (global prefix and its `exclude` list, `RouterModule` path,
 * URI version, controller and method paths; the first when several are given), in OpenAPI's
 * template form. A route versioned by header or media type gets the header that selects its
 * version. `@All()` and the WebDAV verbs name no single OpenAPI operation and are not listed.
 */
export function exploreRoutes(
  modules: ModulesContainer,
  config: ApplicationConfig,
  include: readonly Type[] | undefined,
): NestRoute[] {
  const scanner = new MetadataScanner();
  const paths = new RoutePathFactory(config);
  const prefix = config.getGlobalPrefix();
  const globalPrefix = prefix && !prefix.startsWith('/') ? `/${prefix}` : prefix;
  const versioningOptions = config.getVersioning();
  const routes: NestRoute[] = [];
  for (const module of modules.values()) {
    if (include && !include.includes(module.metatype as Type)) continue;
    const modulePath = modulePathOf(modules, module.metatype);
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<object> | undefined;
      if (!controller?.prototype) continue;
      const controllerPath = firstPath(Reflect.getMetadata(PATH_METADATA, controller));
      const controllerVersion = versioningOptions
        ? ((Reflect.getMetadata(VERSION_METADATA, controller) as VersionValue | undefined) ??
          versioningOptions.defaultVersion)
        : undefined;
      for (const methodName of scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[methodName] as object;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const routePath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (requestMethod === undefined || routePath === undefined) continue;
        const method = METHODS[requestMethod];
        if (!method) continue;
        const methodVersion = Reflect.getMetadata(VERSION_METADATA, handler) as VersionValue | undefined;
        const [served] = paths.create(
          {
            ctrlPath: slashed(controllerPath),
            methodPath: slashed(firstPath(routePath)),
            modulePath,
            globalPrefix,
            controllerVersion,
            methodVersion,
            versioningOptions,
          },
          requestMethod,
        );
        const version = versionHeadersOf(versioningOptions, methodVersion ?? controllerVersion);
        routes.push({
          controller,
          methodName,
          where: `${controller.name}.${methodName}`,
          method,
          path: openApiPath([served]),
          module: module.metatype as Type<unknown>,
          ...(version && { version: version.version, versionHeaders: version.headers }),
        });
      }
    }
  }
  return routes;
}

/**
 * The header that selects a route's version when the app is versioned by header or media type
 * (URI versions are in the path; a custom extractor cannot be known, so nothing is sent).
 */
function versionHeadersOf(
  options: ReturnType<ApplicationConfig['getVersioning']>,
  version: VersionValue | undefined,
): { version: string; headers: Record<string, string> } | undefined {
  const first = Array.isArray(version) ? version[0] : version;
  if (!options || first === undefined || first === VERSION_NEUTRAL) return undefined;
  const text = String(first);
  if (options.type === VersioningType.HEADER)
    return { version: text, headers: { [options.header.toLowerCase()]: text } };
  if (options.type === VersioningType.MEDIA_TYPE)
    return { version: text, headers: { accept: `application/json;${options.key}${text}` } };
  return undefined;
}

function slashed(path: string): string {
  return path.startsWith('/') || path === '' ? path : `/${path}`;
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
