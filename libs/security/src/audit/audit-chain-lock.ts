import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** How often a command waiting for another's hold on the chain looks again. */
const POLL_MS = 50;

/**
 * One writer per chain among the short-lived processes that share one (the command line's runs):
 * a lock file holding the writer's process id, taken before the trail finds where its chain
 * stands and released once it is closed. A command finding it held by a live process waits for
 * it (commands are short) up to `waitMs`, then is refused with the reason; a lock left by a process
 * that died is taken over.
 */
export class AuditChainLock {
  private held = false;

  constructor(
    readonly file: string,
    private readonly chain: string,
    private readonly waitMs: number,
  ) {}

  /** @throws Error when another live process holds the chain past `waitMs` */
  async take(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const owner = await takeLockFile(this.file);
      if (owner === undefined) {
        this.held = true;
        return;
      }
      if (Date.now() >= deadline)
        throw new Error(
          `The audit chain "${this.chain}" is being written by process ${owner || '(starting)'}, another command, ` +
            `which did not finish within ${this.waitMs % 1000 === 0 ? `${this.waitMs / 1000} s` : `${this.waitMs} ms`}: ` +
            `run this command again once it has (its lock: ${this.file})`,
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await rm(this.file, { force: true });
  }
}

/**
 * Takes `file` as a lock holding this process's id, taking over one left by a process that is gone.
 * @returns nothing once taken; else who holds it (a process id, or `''` while its holder writes it)
 */
export async function takeLockFile(file: string): Promise<string | undefined> {
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readFile(file, 'utf8').catch(() => undefined);
    const owner = Number(text);
    if (text === '' || (Number.isInteger(owner) && owner > 0 && isAlive(owner))) return text;
    await rm(file, { force: true });
  }
}

/** Whether process `pid` runs (one of another user's too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
