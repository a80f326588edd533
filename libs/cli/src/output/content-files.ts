import { mkdir, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

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

/** The longest file name written, in characters (a letter may take 4 of a file system's 255 bytes). */
const MAX_NAME = 60;

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
    const fromUri = uri ? safeName(lastSegment(uri)) : '';
    const extension = EXTENSIONS[(mimeType ?? '').split(';')[0].trim().toLowerCase()] ?? '';
    const base = fromUri || `${safeName(this.fallbackName) || 'content'}-${this.used.size + 1}${extension}`;
    const withExtension = shortened(extname(base) ? base : `${base}${extension}`);
    let name = withExtension;
    for (let n = 2; this.used.has(name); n++) name = withExtension.replace(/(\.[^.]*)?$/, `-${n}$1`);
    this.used.add(name);
    return name;
  }
}

/**
 * The last segment of a URI's path, decoded (`%2F` is a slash like any other), with `\` taken
 * as a separator too, as Windows takes it; none for a URI of a scheme alone (`kb://`).
 */
function lastSegment(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '');
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not valid percent-encoding: the name is made of it as it is.
  }
  const segments = decoded.split(/[/\\]/).filter(Boolean);
  const last = segments.at(-1) ?? '';
  return segments.length === 1 && last.endsWith(':') ? '' : last;
}

/** A file name of letters, digits, `.`, `_` and `-` only, not starting with a dot. */
function safeName(name: string): string {
  return name.replace(/[^\p{L}\p{N}_.-]+/gu, '_').replace(/^\.+/, '');
}

/** At most `MAX_NAME` characters (file systems take 255 bytes), its extension kept. */
function shortened(name: string): string {
  if (name.length <= MAX_NAME) return name;
  const extension = extname(name).slice(0, 16);
  return `${name.slice(0, MAX_NAME - extension.length)}${extension}`;
}
