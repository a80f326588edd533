/**
 * The desk could not reach its PostgreSQL database at start-up, or could not create or seed its
 * tables there. The message names DATABASE_URL with the password masked.
 */
export class DeskDatabaseError extends Error {
  constructor(databaseUrl: string, cause: unknown) {
    super(
      `The support desk cannot keep its customers and tickets in PostgreSQL (DATABASE_URL=${maskPassword(databaseUrl)}): ` +
        `${cause instanceof Error ? cause.message : String(cause)}. Check that the server is up and reachable and that ` +
        'the user may create tables, or unset DATABASE_URL to keep the desk in memory.',
      { cause },
    );
    this.name = 'DeskDatabaseError';
  }
}

/**
 * The URL with its password (in the user part or a `password` parameter) replaced by `***`.
 * @internal exported for its spec
 */
export function maskPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.href;
  } catch {
    // Not a URL the WHATWG parser takes: drop the whole user part rather than risk showing a password.
    return databaseUrl.replace(/\/\/.*@/, '//***@').replace(/([?&]password=)[^&]*/i, '$1***');
  }
}
