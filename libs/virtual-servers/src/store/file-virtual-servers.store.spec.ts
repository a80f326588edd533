import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_DOCUMENT } from '../document/virtual-servers.document';
import { FileVirtualServersStore } from './file-virtual-servers.store';
import { VersionConflictError } from './virtual-servers.store';

describe('FileVirtualServersStore', () => {
  it('stores a document over the version it was made from only, in a file only its owner reads', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'vs-')), 'nested', 'virtual-servers.json');
    const store = new FileVirtualServersStore(file);
    await store.open();
    expect(await store.load()).toBeUndefined();
    const first = { ...EMPTY_DOCUMENT, version: 1, updatedBy: 'admin' };
    await store.save(first, 0);
    expect(await store.load()).toEqual(first);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await expect(store.save({ ...first, version: 2 }, 0)).rejects.toBeInstanceOf(VersionConflictError);
    await store.save({ ...first, version: 2 }, 1);
    expect((await store.load())?.version).toBe(2);
  });
});
