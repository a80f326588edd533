/**
 * Thrown when a feature is used whose package is not installed (e.g. OAuth without `jose`, a zod
 * schema without `zod`, metrics without `prom-client`). Says which package and how to add it.
 */
export class MissingDependencyError extends Error {
  constructor(
    /** The npm package that could not be loaded. */
    readonly packageName: string,
    /** What needs it, e.g. `auth: { mode: 'oauth' }`. */
    readonly feature: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${feature} needs the package "${packageName}", which is not installed; fix: npm install ${packageName}`,
      options,
    );
    this.name = 'MissingDependencyError';
  }
}
