import { MissingDependencyError } from '../errors/missing-dependency.error';

/**
 * A loader of a package that only some hosts use (OAuth's `jose`, `zod`, `prom-client`, …): the
 * package is required the first time the feature needing it runs, not when the library is
 * loaded, so a host that does not use the feature neither pays its start-up time nor needs it
 * installed. The loaded module is kept, so calling the loader again on a hot path costs a check.
 *
 * `load` must call `require` with a literal name (bundlers and jest see it); a missing package
 * becomes a `MissingDependencyError` that names it and the feature.
 *
 * @internal for the sibling libraries
 * @example
 * ```ts
 * const jose = optionalDependency('jose', "auth: { mode: 'oauth' }", (): typeof import('jose') => require('jose'));
 * jose().createRemoteJWKSet(url); // requires jose on the first call only
 * ```
 */
export function optionalDependency<T>(packageName: string, feature: string, load: () => T): () => T {
  let loaded: { module: T } | undefined;
  return () => {
    if (loaded) return loaded.module;
    try {
      loaded = { module: load() };
    } catch (error) {
      throw isNotFound(error, packageName) ? new MissingDependencyError(packageName, feature, { cause: error }) : error;
    }
    return loaded.module;
  };
}

/** Whether `error` says `packageName` itself (not one of its own imports) cannot be found. */
function isNotFound(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  const message = String((error as Error).message);
  return (
    message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`) || message.includes(`'${packageName}/`)
  );
}
