import type { McpLogLevel } from '#libs/core';

/** How a call reaches back to its client; implemented by each transport. */
export interface CallChannel {
  /** Sends a notification related to the request being served. */
  notify(method: string, params: Record<string, unknown>): void;
  /** The lowest log level the client asked for (`logging/setLevel`), if any. */
  readonly logLevel: McpLogLevel | undefined;
}
