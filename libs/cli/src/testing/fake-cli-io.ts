import { PassThrough } from 'node:stream';
import type { CliIo } from '../command-line/cli-io';

/** How a test's terminal looks: whether each stream is one, its width, what a person types. */
export interface FakeTerminal {
  /** stdin, stdout and stderr are terminals (a person at the keyboard). @default false */
  tty?: boolean;
  columns?: number;
  /** The lines a person types, one per question, in order. */
  answers?: string[];
  /** What is piped into stdin. @default nothing */
  stdin?: string;
}

/** A `CliIo` that records what the command line writes and asks (for specs; the runner takes it as `io`). */
export interface FakeCliIo extends CliIo {
  readonly out: string;
  readonly err: string;
  /** The questions asked, in order. */
  readonly questions: string[];
}

/**
 * A terminal for specs: stdout and stderr captured as text, questions answered from a list (a
 * question with no answer left fails the test, rather than hanging it).
 */
export function fakeCliIo({ tty = false, columns, answers = [], stdin = '' }: FakeTerminal = {}): FakeCliIo {
  const written = { out: '', err: '' };
  const questions: string[] = [];
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  input.end(stdin);
  return {
    stdout: { write: (text) => void (written.out += text), isTTY: tty, columns },
    stderr: { write: (text) => void (written.err += text), isTTY: tty, columns },
    stdin: input,
    questions,
    ask(question) {
      questions.push(question);
      const answer = answers.shift();
      return answer === undefined
        ? Promise.reject(new Error(`no answer left for "${question}"`))
        : Promise.resolve(answer);
    },
    get out() {
      return written.out;
    },
    get err() {
      return written.err;
    },
  };
}
