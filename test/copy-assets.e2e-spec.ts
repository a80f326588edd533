import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SCRIPT = join(__dirname, '..', 'libs', 'scripts', 'copy-assets.mjs');

/**
 * libs/scripts/copy-assets.mjs, the build's step that puts libs' non-TypeScript files (the admin
 * dashboard's page, script and style sheet) next to the compiled code, run as `npm run build`
 * runs it, on a tree of its own.
 */
describe('libs/scripts/copy-assets.mjs', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: root, encoding: 'utf8' });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'copy-assets-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies every assets folder to the same relative place under the output root, replacing what was there', () => {
    write('libs/ops/src/admin/assets/admin.js', "'use strict';");
    write('libs/ops/src/admin/assets/icons/a.svg', '<svg/>');
    write('libs/ops/src/admin/admin.ts', 'export {};');
    write('libs/core/src/assets/x.css', 'p {}');
    write('libs/node_modules/pkg/assets/no.js', 'no');
    write('libs/dist/ops/src/admin/assets/stale-in-source-dist.js', 'no');
    write('dist/libs/ops/src/admin/assets/removed-since.js', 'stale');
    const result = run('libs', 'dist/libs');
    expect(result).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const out = (path: string) => join(root, 'dist/libs', path);
    expect(readFileSync(out('ops/src/admin/assets/admin.js'), 'utf8')).toBe("'use strict';");
    expect(readFileSync(out('ops/src/admin/assets/icons/a.svg'), 'utf8')).toBe('<svg/>');
    expect(readFileSync(out('core/src/assets/x.css'), 'utf8')).toBe('p {}');
    expect(existsSync(out('ops/src/admin/admin.ts'))).toBe(false);
    expect(existsSync(out('ops/src/admin/assets/removed-since.js'))).toBe(false);
    expect(existsSync(out('node_modules'))).toBe(false);
    expect(existsSync(out('dist'))).toBe(false);
  });

  it('may write under a dist folder of the source root (a package that builds to libs/dist)', () => {
    write('libs/ops/src/assets/a.js', 'a');
    expect(run('libs', 'libs/dist').status).toBe(0);
    expect(readFileSync(join(root, 'libs/dist/ops/src/assets/a.js'), 'utf8')).toBe('a');
    // Run again: the copies under libs/dist are not copied once more.
    expect(run('libs', 'libs/dist').status).toBe(0);
    expect(existsSync(join(root, 'libs/dist/dist'))).toBe(false);
  });

  it('says what is wrong with its arguments', () => {
    write('libs/ops/src/assets/a.js', 'a');
    expect(run('libs')).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('Usage: node scripts/copy-assets.mjs <source root> <output root>'),
    });
    expect(run('nope', 'dist')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('the source root nope is not a directory'),
    });
    expect(run('libs', 'libs/out')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('the output root libs/out must lie outside libs'),
    });
    expect(run('libs', 'libs')).toMatchObject({ status: 1 });
  });
});
