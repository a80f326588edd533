import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_ASSETS_DIR, AdminAssets } from './admin-assets';

describe('AdminAssets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'admin-assets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds its files beside the module, in the sources as in the build', () => {
    expect(ADMIN_ASSETS_DIR).toBe(join(__dirname, 'assets'));
    expect(AdminAssets.load().script.body).toContain("'use strict';");
  });

  it('reads the page template, script and style sheet once, each with its type and a hash as entity tag', () => {
    writeFileSync(join(dir, 'admin.html'), '<p>{{base}}</p>');
    writeFileSync(join(dir, 'admin.js'), "'use strict';");
    writeFileSync(join(dir, 'admin.css'), 'p { color: red; }');
    const assets = AdminAssets.load(dir);
    // Changing the files afterwards changes nothing: they were read at load.
    writeFileSync(join(dir, 'admin.js'), "'use strict'; changed();");
    expect(assets.pageTemplate).toBe('<p>{{base}}</p>');
    expect(assets.script).toEqual({
      body: "'use strict';",
      contentType: 'text/javascript; charset=utf-8',
      etag: `"${createHash('sha256').update("'use strict';").digest('base64url')}"`,
    });
    expect(assets.style.contentType).toBe('text/css; charset=utf-8');
    expect(assets.style.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(assets.style.etag).not.toBe(assets.script.etag);
  });

  it('names a missing file and how to fix it', () => {
    writeFileSync(join(dir, 'admin.html'), '<p></p>');
    expect(() => AdminAssets.load(dir)).toThrow(
      `The admin dashboard cannot read ${join(dir, 'admin.js')} (ENOENT): a build must copy libs/**/assets next to the compiled code ` +
        '(the package build does, with libs/scripts/copy-assets.mjs); rebuild, or turn the dashboard off with the option admin: false.',
    );
  });

  it('answers If-None-Match by weak comparison', () => {
    const asset = { body: 'x', contentType: 'text/css; charset=utf-8', etag: '"abc"' };
    expect(AdminAssets.notModified(asset, undefined)).toBe(false);
    expect(AdminAssets.notModified(asset, '"abc"')).toBe(true);
    expect(AdminAssets.notModified(asset, 'W/"abc"')).toBe(true);
    expect(AdminAssets.notModified(asset, '"old", "abc"')).toBe(true);
    expect(AdminAssets.notModified(asset, '*')).toBe(true);
    expect(AdminAssets.notModified(asset, '"old"')).toBe(false);
    expect(AdminAssets.notModified(asset, 'abc')).toBe(false);
  });
});
