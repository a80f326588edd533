import { Inject } from '@nestjs/common';

/** Token of the host's `ConfigChanges` (a piece of the shared state). */
export const MCP_CONFIG_CHANGES = Symbol('MCP:CONFIG_CHANGES');

/** Injects the host's `ConfigChanges`. */
export const InjectConfigChanges = (): ParameterDecorator => Inject(MCP_CONFIG_CHANGES);

/**
 * How a change of configuration stored at run time (through the admin API: the virtual servers)
 * reaches the other replicas: the replica that stored it announces the stored version, and every
 * other replica reads the store again and applies it. The word carries no configuration, only
 * which document and which version: the store is where it is read, so a replica that missed the
 * word catches up at its next read.
 * @internal
 */
export interface ConfigChanges {
  /** Tells the other replicas that `document` is stored at `version` (resolves once sent). */
  announce(document: string, version: number): Promise<void>;
  /** Calls `listener` with each announcement another replica made; returns how to stop. */
  onChange(listener: (document: string, version: number) => void): () => void;
}

/** One replica: nobody else to tell. */
export class LocalConfigChanges implements ConfigChanges {
  announce(): Promise<void> {
    return Promise.resolve();
  }

  onChange(): () => void {
    return () => undefined;
  }
}
