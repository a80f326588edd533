import type { VirtualServersDocument } from '../document/virtual-servers.document';

/**
 * Where the virtual servers are stored: a JSON file (one replica, or a volume they share) or
 * PostgreSQL (`PostgresVirtualServersStore`, for replicas). `save` stores a document only over the
 * version it was made from, so that concurrent changes on two replicas cannot both win.
 */
export interface VirtualServersStore {
  /** Shown in logs and readiness: `file`, `postgres`. */
  readonly name: string;
  /** Creates what it needs (a directory, a table). */
  open?(): Promise<void>;
  /** The stored document, or `undefined` before anything was stored. */
  load(): Promise<VirtualServersDocument | undefined>;
  /**
   * Stores `document` (its `version` one above `expected`).
   * @throws VersionConflictError when the stored version is not `expected`
   */
  save(document: VirtualServersDocument, expected: number): Promise<void>;
  close?(): Promise<void>;
}

/** The stored document changed since the one a change was made from. */
export class VersionConflictError extends Error {
  constructor(
    readonly expected: number,
    readonly stored: number,
  ) {
    super(
      `The virtual servers changed meanwhile (version ${stored}, the change was made from ${expected}): read them again and repeat the change`,
    );
    this.name = 'VersionConflictError';
  }
}
