import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdminMessages } from '../access/admin.messages';

/**
 * Where the dashboard's files are: `assets/` beside this module, both in the sources (which
 * ts-jest runs) and in the build, where `scripts/copy-assets.mjs` (part of `npm run build`)
 * copies them next to the compiled code, since `tsc` emits `.ts` files only; from the package's
 * bundle (dist/bundle, `scripts/bundle.mjs`), the same folder of the build.
 */
export const ADMIN_ASSETS_DIR =
  [join(__dirname, 'assets'), join(__dirname, '..', 'operations', 'src', 'admin', 'assets')].find((dir) =>
    existsSync(join(dir, 'admin.html')),
  ) ?? join(__dirname, 'assets');

/** A file the dashboard serves as it is, with the entity tag a browser revalidates it by. */
export interface AdminAsset {
  readonly body: string;
  readonly contentType: string;
  /** A strong entity tag: a hash of the body, so it changes exactly when the file does. */
  readonly etag: string;
}

/**
 * The admin dashboard's browser files, read once when the dashboard is mounted (never per
 * request): the page template `admin.html`, the script `admin.js` and the style sheet `admin.css`.
 *
 * @example
 * const assets = AdminAssets.load();
 * res.end(assets.script.body);
 */
export class AdminAssets {
  private constructor(
    /** `admin.html`, with `{{name}}` placeholders for `renderAdminPage`. */
    readonly pageTemplate: string,
    /** `admin.js`, served as `<admin path>/app.js`. */
    readonly script: AdminAsset,
    /** `admin.css`, served as `<admin path>/app.css`. */
    readonly style: AdminAsset,
  ) {}

  /** Reads the files from `dir`; a missing one is a start-up error that says how to fix it. */
  static load(dir: string = ADMIN_ASSETS_DIR): AdminAssets {
    const read = (name: string): string => {
      const path = join(dir, name);
      try {
        return readFileSync(path, 'utf8');
      } catch (error) {
        throw new Error(
          AdminMessages.missingAsset(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message),
        );
      }
    };
    const asset = (name: string, contentType: string): AdminAsset => {
      const body = read(name);
      return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
    };
    return new AdminAssets(
      read('admin.html'),
      asset('admin.js', 'text/javascript; charset=utf-8'),
      asset('admin.css', 'text/css; charset=utf-8'),
    );
  }

  /** Whether a request's `If-None-Match` names the asset's current version (then it gets a 304). */
  static notModified(asset: AdminAsset, ifNoneMatch: string | undefined): boolean {
    if (!ifNoneMatch) return false;
    // Weak comparison, as RFC 9110 asks for If-None-Match: `W/"x"` matches `"x"`.
    return ifNoneMatch.split(',').some((tag) => {
      const trimmed = tag.trim();
      return trimmed === '*' || trimmed.replace(/^W\//, '') === asset.etag;
    });
  }
}
