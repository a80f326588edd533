import type { Type } from '@nestjs/common';
import type { AbstractHttpAdapter, ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { optionalDependency } from '#libs/core';

const swagger = optionalDependency(
  '@nestjs/swagger',
  "REST routes described by @nestjs/swagger (rest: { metadata: 'swagger' })",
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('@nestjs/swagger') => require('@nestjs/swagger'),
);

/** Whether `@nestjs/swagger` can be loaded (`metadata: 'auto'` uses it when it can). */
export function swaggerInstalled(): boolean {
  try {
    swagger();
    return true;
  } catch {
    return false;
  }
}

/**
 * The OpenAPI document `@nestjs/swagger` makes of the application's controllers, built exactly
 * as `SwaggerModule.createDocument(app, config)` builds it. The scanner reads only the
 * application's module container, its configuration (global prefix) and its HTTP adapter, so it
 * is given those, as the parts of the application a provider can reach.
 */
export function swaggerDocument(
  modules: ModulesContainer,
  config: ApplicationConfig,
  adapter: AbstractHttpAdapter,
  include: readonly Type[] | undefined,
): Record<string, unknown> {
  const { SwaggerModule, DocumentBuilder } = swagger();
  const application = {
    container: { getModules: () => modules, isGlobalModule: () => false },
    config,
    getHttpAdapter: () => adapter,
  };
  return SwaggerModule.createDocument(
    application as unknown as Parameters<typeof SwaggerModule.createDocument>[0],
    new DocumentBuilder().build(),
    include ? { include: [...include] } : {},
  ) as unknown as Record<string, unknown>;
}
