import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';

/** A stream the CLI writes to, with whether a person watches it (a terminal). */
export interface CliOutput {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Columns of the terminal, when it is one. */
  readonly columns?: number;
}

/** Where the command line reads and writes: the process's own streams, or a test's. */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: Readable & { isTTY?: boolean };
  /** Asks a person on the terminal and resolves to the line they typed. */
  ask(question: string): Promise<string>;
}

/**
 * One of the process's streams as a `CliOutput`. A reader that went away (`desk list | head -1`)
 * is not the command's failure: as a Unix tool stopped by SIGPIPE, the CLI leaves out what is
 * left to write, and the command ends as it would have (the application closed, its audit
 * trail flushed, its exit code), without Node's unhandled `EPIPE` and its stack.
 */
function outputOf(stream: Writable & { isTTY?: boolean; columns?: number }): CliOutput {
  let readerGone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
  return {
    write: (text) => void (readerGone || stream.destroyed || stream.write(text)),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  };
}

/** The process's stdin, stdout and stderr. */
export function processIo(): CliIo {
  return {
    stdout: outputOf(process.stdout),
    stderr: outputOf(process.stderr),
    stdin: process.stdin,
    async ask(question) {
      // Questions go to stderr, so stdout keeps only the command's output.
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await terminal.question(question);
      } finally {
        terminal.close();
      }
    },
  };
}

/** All of `stream` as text (for `--json -`). */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
