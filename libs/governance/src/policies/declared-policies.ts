import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import type { ModulesContainer } from '@nestjs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { policiesOn } from './mcp-policy.decorator';
import type { PolicySource } from './policy-compiler';

/**
 * The policies declared with `@McpPolicy`: on the methods and classes of the providers that serve
 * the catalog's entries, and on the app's controllers — a route's policies govern its HTTP route
 * (behind `McpGovernanceGuard`) and the tool the REST bridge makes of it (`RegisteredHandler.runs`).
 * Each method and class once, each policy with where it was declared.
 */
export function declaredPolicies(
  catalog: readonly { all(): readonly RegisteredHandler[] }[],
  modules: ModulesContainer | undefined,
): PolicySource[] {
  const sources: PolicySource[] = [];
  const seen = new Set<unknown>();
  const declare = (hostClass: Type<object>, methodName: string, where: string) => {
    const method = (hostClass.prototype as Record<string, unknown>)[methodName];
    if (!seen.has(method)) {
      seen.add(method);
      policiesOn(method).forEach((definition, index) =>
        sources.push({ definition, where: `${where} @McpPolicy[${index}]`, handler: { hostClass, methodName } }),
      );
    }
    if (!seen.has(hostClass)) {
      seen.add(hostClass);
      policiesOn(hostClass).forEach((definition, index) =>
        sources.push({ definition, where: `${hostClass.name} @McpPolicy[${index}]`, handler: { hostClass } }),
      );
    }
  };
  for (const list of catalog) for (const entry of list.all()) declare(entry.hostClass, entry.methodName, entry.where);
  for (const controller of controllersOf(modules))
    for (const methodName of routeMethodsOf(controller))
      declare(controller, methodName, `${controller.name}.${methodName}`);
  return sources;
}

/** The app's controllers. */
function controllersOf(modules: ModulesContainer | undefined): Type<object>[] {
  const found = new Set<Type<object>>();
  for (const module of modules?.values() ?? [])
    for (const wrapper of module.controllers.values())
      if (typeof wrapper.metatype === 'function') found.add(wrapper.metatype as Type<object>);
  return [...found];
}

/** The route handlers of a controller class (the methods Nest routes to), own and inherited. */
function routeMethodsOf(controller: Type<object>): string[] {
  const names = new Set<string>();
  for (
    let proto = controller.prototype as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  )
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = (proto as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof method === 'function' && Reflect.hasMetadata(PATH_METADATA, method))
        names.add(name);
    }
  return [...names];
}
