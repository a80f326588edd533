import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditChainLock } from './audit-chain-lock';

describe('AuditChainLock', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'chain-lock-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lets one command write the chain at a time: the next waits, then takes it once released', async () => {
    const file = join(dir, 'spool', 'desk-1.cli.lock');
    const first = new AuditChainLock(file, 'desk-1.cli', 100);
    await first.take();
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    await expect(new AuditChainLock(file, 'desk-1.cli', 100).take()).rejects.toThrow(
      `The audit chain "desk-1.cli" is being written by process ${process.pid}, another command, which did not finish within 100 ms: run this command again once it has (its lock: ${file})`,
    );
    const second = new AuditChainLock(file, 'desk-1.cli', 5_000);
    const taken = second.take();
    await first.release();
    await taken;
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
    await second.release();
    await expect(readFile(file, 'utf8')).rejects.toThrow('ENOENT');
  });

  it('takes over the lock of a command that died', async () => {
    const file = join(dir, 'desk-1.cli.lock');
    await writeFile(file, '2147483646');
    await new AuditChainLock(file, 'desk-1.cli', 0).take();
    expect(await readFile(file, 'utf8')).toBe(String(process.pid));
  });
});
