import { Inject, Optional } from '@nestjs/common';
import type { RegisteredHandler } from '#libs/catalog';

/** What the engine reads of a client to tell whether it declared an extension (a session, or a 2026 request's). */
export interface ExtensionClient {
  readonly clientCapabilities: Record<string, unknown> | undefined;
}

/**
 * A protocol extension a feature adds to the host (MCP Apps is one). The engine announces it in
 * `capabilities.extensions` of both eras (`initialize`, `server/discover`), keeps the entries that
 * only its clients can use out of every other client's lists and calls (so that lists and calls
 * agree per audience), and notes in a call's audit record how the call came when only the
 * extension could have made it.
 */
export interface ProtocolExtension {
  /** Its identifier, e.g. `io.modelcontextprotocol/ui`. */
  readonly id: string;
  /**
   * What the server announces under its identifier, or `undefined` while it has nothing to offer
   * (no view in the catalog); read per `initialize` / `server/discover`, never before start-up.
   */
  settings(): Record<string, unknown> | undefined;
  /** Whether a client's declaration (`capabilities.extensions[id]`) is one the host can serve. @default any object */
  accepts?(declared: Record<string, unknown>): boolean;
  /** Whether `entry` is only for clients that declared the extension. */
  requires?(entry: RegisteredHandler): boolean;
  /** How a call of `entry` reached the host, when only the extension can make it (`view`). */
  originOf?(entry: RegisteredHandler): string | undefined;
}

/** Token of the host's `ProtocolExtension[]` (none when unbound). */
export const MCP_PROTOCOL_EXTENSIONS = Symbol('MCP:PROTOCOL_EXTENSIONS');

/** Injects the host's `ProtocolExtension[]`, optionally. */
export const InjectProtocolExtensions = (): ParameterDecorator => (target, key, index) => {
  Inject(MCP_PROTOCOL_EXTENSIONS)(target, key, index);
  Optional()(target, key, index);
};

/** Whether `client` declared `extension` in a form the extension accepts. */
export function declares(client: ExtensionClient, extension: ProtocolExtension): boolean {
  const declared = (client.clientCapabilities?.extensions as Record<string, unknown> | undefined)?.[extension.id];
  if (typeof declared !== 'object' || declared === null) return false;
  return extension.accepts?.(declared as Record<string, unknown>) ?? true;
}
