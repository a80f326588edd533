import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CatalogPin } from './catalog-pin';
import type { CatalogPinStore } from './catalog-pin.store';

/**
 * The pins in one JSON file (`{ "pins": [ … ] }`), written whole to a file beside it and renamed
 * over it, so that a crash leaves the old pins or the new ones, never half. For one replica, or
 * replicas sharing the file's volume (read again every `pinning.resyncMs`).
 *
 * @example
 * ```ts
 * governance: { pinning: { store: new FileCatalogPinStore('/var/lib/mcp/catalog-pins.json') } }
 * ```
 */
export class FileCatalogPinStore implements CatalogPinStore {
  readonly name = 'file';
  readonly shared = true;
  /** Writes one after the other: two saves at once would each keep only their own pins. */
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  async open(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
  }

  async load(): Promise<CatalogPin[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const pins = (JSON.parse(text) as { pins?: CatalogPin[] }).pins;
    return Array.isArray(pins) ? pins : [];
  }

  save(pins: readonly CatalogPin[]): Promise<void> {
    const write = this.writing.then(async () => {
      const kept = new Map((await this.load()).map((pin) => [pin.id, pin]));
      for (const pin of pins) kept.set(pin.id, pin);
      const next = `${this.file}.${process.pid}.next`;
      await writeFile(next, `${JSON.stringify({ pins: [...kept.values()] }, null, 2)}\n`, { mode: 0o600 });
      await rename(next, this.file);
    });
    this.writing = write.catch(() => undefined);
    return write;
  }
}
