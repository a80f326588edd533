import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { VirtualServersDocument } from '../document/virtual-servers.document';
import { VersionConflictError, type VirtualServersStore } from './virtual-servers.store';

/**
 * The virtual servers in one JSON file (mode 0600: it may hold upstream credentials), written
 * whole to a file beside it and renamed over it, so that a crash leaves the old document or the
 * new one, never half. For one replica, or replicas sharing the file's volume.
 *
 * @example
 * ```ts
 * virtualServers: { store: new FileVirtualServersStore('/var/lib/mcp/virtual-servers.json') }
 * ```
 */
export class FileVirtualServersStore implements VirtualServersStore {
  readonly name = 'file';

  constructor(readonly file: string) {}

  async open(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
  }

  async load(): Promise<VirtualServersDocument | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return JSON.parse(text) as VirtualServersDocument;
  }

  async save(document: VirtualServersDocument, expected: number): Promise<void> {
    const stored = (await this.load())?.version ?? 0;
    if (stored !== expected) throw new VersionConflictError(expected, stored);
    const next = `${this.file}.${process.pid}.next`;
    await writeFile(next, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    await rename(next, this.file);
  }
}
