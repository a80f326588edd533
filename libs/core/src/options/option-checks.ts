/** Reports one problem of an option: where, what is wrong, and how to fix it. */
export type OptionReport = (option: string, problem: string, fix: string) => void;

/**
 * The checks every options resolver needs, reporting each problem instead of throwing, so that
 * all of them are told at once.
 * @internal for the libraries' option resolvers
 */
export function optionChecks(given: Record<string, unknown>, report: OptionReport, prefix = '') {
  const name = (key: string) => `${prefix}${key}`;
  return {
    /** An integer ≥ `min` (the fallback when absent). */
    integer(key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
      const value = given[key] ?? fallback;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        const range = max === Number.MAX_SAFE_INTEGER ? `integer ≥ ${min}` : `integer from ${min} to ${max}`;
        report(
          name(key),
          `must be an ${range}, got ${JSON.stringify(value)}`,
          `set ${key}: ${fallback} (the default) or another ${range}`,
        );
        return fallback;
      }
      return value;
    },
    /** `true` or `false` (the fallback when absent). */
    flag(key: string, fallback: boolean): boolean {
      const value = given[key] ?? fallback;
      if (typeof value !== 'boolean') {
        report(name(key), 'must be true or false', `set ${key}: ${fallback}`);
        return fallback;
      }
      return value;
    },
    /** Unknown keys, each reported with the known ones. */
    known(keys: ReadonlySet<string>, what = 'options'): void {
      for (const key of Object.keys(given)) {
        if (!keys.has(key))
          report(name(key), 'is not a known option', `remove it; known ${what} are: ${[...keys].join(', ')}`);
      }
    },
  };
}

/** An absolute URL path: a leading slash, no trailing one, no query. */
export const URL_PATH = /^\/[A-Za-z0-9/_.~-]*$/;
