import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ContentFiles } from './content-files';

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('ContentFiles', () => {
  let root: string;
  let dir: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'content-files-'));
    dir = join(root, 'out', 'nested');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('creates the directory and writes the data under it, returning the path', async () => {
    const files = new ContentFiles(dir, 'export_report');
    const path = await files.write('id,priority\n', 'text/csv', 'report://exports/tickets.csv');
    expect(path).toBe(join(dir, 'tickets.csv'));
    await expect(readFile(path, 'utf8')).resolves.toBe('id,priority\n');
    const binary = await files.write(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png');
    expect([...(await readFile(binary))]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it.each([
    ['../../etc/passwd', 'passwd.txt'],
    ['/etc/passwd', 'passwd.txt'],
    ['report://x/../../a b.csv', 'a_b.csv'],
    ['kb://files/r.csv?version=2&x=../../y#top', 'r.csv'],
    ['kb://files/notes?download=1', 'notes.txt'],
    ['file:///home/me/.bashrc', 'bashrc.txt'],
    ['kb://x/..\\..\\windows\\win.ini', 'win.ini'],
    ['kb://x/%2e%2e%2fsecret', 'secret.txt'],
    ['kb://x/100%.txt', '100_.txt'],
    ['kb://x/caf\u00e9 \u2603.txt', 'caf\u00e9_.txt'],
  ])('reduces the URI %j to a safe name under the directory: %s', async (uri, name) => {
    const path = await new ContentFiles(dir, 'read').write('x', 'text/plain', uri);
    expect(relative(dir, path)).toBe(name);
    expect(await filesUnder(root)).toEqual([join('out', 'nested', name)]);
  });

  it.each([['..'], ['kb://x/..'], ['kb://x/...'], ['?'], ['kb://']])(
    'names a URI that leaves no name (%j) after the command',
    async (uri) => {
      const path = await new ContentFiles(dir, 'read').write('x', 'text/plain', uri);
      expect(relative(dir, path)).toBe('read-1.txt');
    },
  );

  it('takes the extension from the media type, ignoring its parameters and case', async () => {
    const files = new ContentFiles(dir, 'tool');
    const names = [
      await files.write('x', 'image/png'),
      await files.write('x', 'text/csv; charset=utf-8', 'report://r/latest'),
      await files.write('x', 'IMAGE/JPEG'),
      await files.write('x', 'audio/wav'),
      await files.write('x', 'application/x-unknown', 'report://r/blob'),
      await files.write('x', undefined),
      await files.write('x', 'image/png', 'report://r/chart.svg'),
    ].map((path) => relative(dir, path));
    expect(names).toEqual(['tool-1.png', 'latest.csv', 'tool-3.jpg', 'tool-4.wav', 'blob', 'tool-6', 'chart.svg']);
  });

  it('numbers names used before, so no file of the result overwrites another', async () => {
    const files = new ContentFiles(dir, 'tool');
    const paths = [
      await files.write('1', 'text/csv', 'report://a/report.csv'),
      await files.write('2', 'text/csv', 'report://b/report.csv'),
      await files.write('3', 'text/csv', 'report://c/report.csv?v=3'),
      await files.write('4', 'text/plain', 'kb://readme'),
      await files.write('5', 'text/plain', 'kb://other/readme'),
    ];
    expect(paths.map((path) => relative(dir, path))).toEqual([
      'report.csv',
      'report-2.csv',
      'report-3.csv',
      'readme.txt',
      'readme-2.txt',
    ]);
    expect(await Promise.all(paths.map((path) => readFile(path, 'utf8')))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('shortens a name too long for the file system, keeping its extension', async () => {
    const path = await new ContentFiles(dir, 'tool').write('x', 'text/csv', `report://r/${'a'.repeat(400)}.csv`);
    const name = relative(dir, path);
    expect(name).toMatch(/^a+\.csv$/);
    expect(name.length).toBeLessThanOrEqual(60);
    await expect(readFile(path, 'utf8')).resolves.toBe('x');
  });

  it('writes nothing outside its directory, whatever the URIs', async () => {
    const files = new ContentFiles(dir, '../../escape');
    const hostile = [
      '../../../../x.txt',
      'report://x/../../../y.txt',
      '/tmp/z.txt',
      'kb://a/..',
      'kb://a/../',
      '..%2f..%2fw.txt',
      'kb://x/\u0000nul.txt',
      '.',
      '',
    ];
    for (const uri of hostile) await files.write('x', 'text/plain', uri);
    await files.write('x', 'image/png');
    const written = await filesUnder(root);
    expect(written).toHaveLength(hostile.length + 1);
    for (const path of written) expect(path.startsWith(join('out', 'nested') + '/')).toBe(true);
    expect(written.every((path) => !path.slice('out/nested/'.length).includes('/'))).toBe(true);
  });
});
