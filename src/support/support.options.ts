/** Token of the support desk's own settings. */
export const SUPPORT_OPTIONS = Symbol('SUPPORT:OPTIONS');

export interface SupportOptions {
  /** Refuse every tool that is not read-only (e.g. during a migration). */
  readOnly: boolean;
  /** Pause between report steps, in ms (a stand-in for slow back-end queries). */
  reportStepMs: number;
  /**
   * PostgreSQL URL to keep customers and tickets in, shared by every replica (DATABASE_URL).
   * @default undefined: in process memory, seeded, one set per process
   */
  databaseUrl?: string;
}
