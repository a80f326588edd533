import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';

/** File name extensions of the media types tools commonly return. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/svg+xml': '.svg',
  'audio/wav': '.wav',
  'audio/mpeg': '.mp3',
  'audio/ogg': '.ogg',
  'text/csv': '.csv',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/html': '.html',
  'application/json': '.json',
  'application/pdf': '.pdf',
};

/**
 * Writes what a result carries as files into one directory, under names made from its URIs
 * (never a path: a name is reduced to its last segment, so a result cannot write outside it).
 */
export class ContentFiles {
  private readonly used = new Set<string>();
  private created = false;

  constructor(
    private readonly dir: string,
    private readonly fallbackName: string,
  ) {}

  /** Writes `data` and returns the file's path. */
  async write(data: Buffer | string, mimeType: string | undefined, uri?: string): Promise<string> {
    if (!this.created) {
      await mkdir(this.dir, { recursive: true });
      this.created = true;
    }
    const path = join(this.dir, this.nameFor(mimeType, uri));
    await writeFile(path, data);
    return path;
  }

  private nameFor(mimeType: string | undefined, uri: string | undefined): string {
    const fromUri = uri ? safeName(basename(uri.replace(/[?#].*$/, ''))) : '';
    const extension = EXTENSIONS[(mimeType ?? '').split(';')[0].trim()] ?? '';
    const base = fromUri || `${safeName(this.fallbackName) || 'content'}-${this.used.size + 1}${extension}`;
    const withExtension = extname(base) ? base : `${base}${extension}`;
    let name = withExtension;
    for (let n = 2; this.used.has(name); n++) name = withExtension.replace(/(\.[^.]*)?$/, `-${n}$1`);
    this.used.add(name);
    return name;
  }
}

/** A file name of letters, digits, `.`, `_` and `-` only, not starting with a dot. */
function safeName(name: string): string {
  return name.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '');
}
