import { Inject, type Type } from '@nestjs/common';
import type { OptionReport } from '#libs/core';

/** What the catalog's discovery needs of the module's options. */
export interface CatalogOptions {
  /**
   * The modules whose providers are scanned for tools, prompts and resources (only the
   * providers declared in them, not in the modules they import); `undefined`: every module.
   */
  include: readonly Type[] | undefined;
}

/** Token of the resolved `CatalogOptions`. */
export const MCP_CATALOG_OPTIONS = Symbol('MCP:CATALOG_OPTIONS');

/** Injects the `CatalogOptions`. */
export const InjectCatalogOptions = (): ParameterDecorator => Inject(MCP_CATALOG_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const CATALOG_OPTION_KEYS = ['include'] as const;

/**
 * Validates the catalog options.
 * @param report called once per problem, with how to fix it
 */
export function resolveCatalogOptions(o: Record<string, unknown>, report: OptionReport): CatalogOptions {
  const include = o.include;
  if (include === undefined) return { include: undefined };
  if (!Array.isArray(include) || include.some((item) => typeof item !== 'function')) {
    report(
      'include',
      'must be an array of module classes',
      'list the feature modules whose tools this endpoint serves, e.g. include: [BillingModule] ' +
        '(the class, also for a module imported as BillingModule.register(...))',
    );
    return { include: undefined };
  }
  return { include: [...(include as Type[])] };
}
