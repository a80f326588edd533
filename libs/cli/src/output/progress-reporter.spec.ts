import type { CliOutput } from '../command-line/cli-io';
import { ProgressReporter } from './progress-reporter';

function terminal(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  const out: CliOutput = { write: (text) => void writes.push(text), isTTY, columns };
  return { writes, reporter: new ProgressReporter(out) };
}

describe('ProgressReporter', () => {
  describe('not on a terminal (a log, a CI step)', () => {
    it('writes a plain line per update: count, share of the total, message', () => {
      const { writes, reporter } = terminal(false);
      reporter.report({ progress: 4, total: 20, message: '4 of 20 tickets' });
      reporter.report({ progress: 1, total: 3 });
      reporter.report({ progress: 7 });
      reporter.report({ progress: 2, message: 'warming up' });
      reporter.report({ progress: 30, total: 20 });
      reporter.above(() => writes.push('info: a log line\n'));
      reporter.done();
      expect(writes).toEqual([
        'progress 4/20 (20%) 4 of 20 tickets\n',
        'progress 1/3 (33%)\n',
        'progress 7\n',
        'progress 2 warming up\n',
        'progress 30/20 (100%)\n',
        'info: a log line\n',
      ]);
    });
  });

  describe('on a terminal', () => {
    it('redraws one line in place: a bar, the count and the message, padded to the width', () => {
      const { writes, reporter } = terminal(true, 60);
      reporter.report({ progress: 0, total: 4, message: 'starting' });
      reporter.report({ progress: 1, total: 4 });
      reporter.report({ progress: 4, total: 4, message: 'done' });
      expect(writes).toEqual([
        `\r${'[........................] 0/4 starting'.padEnd(59)}`,
        `\r${'[######..................] 1/4'.padEnd(59)}`,
        `\r${'[########################] 4/4 done'.padEnd(59)}`,
      ]);
    });

    it('shows only the count without a total', () => {
      const { writes, reporter } = terminal(true, 30);
      reporter.report({ progress: 12, message: 'rows' });
      expect(writes).toEqual([`\r${'12 rows'.padEnd(29)}`]);
    });

    it('fits the line to the columns, short of the last (where a terminal would wrap)', () => {
      const { writes, reporter } = terminal(true, 20);
      reporter.report({ progress: 2, total: 4, message: 'a message far too long for the terminal' });
      expect(writes).toEqual(['\r[############......']);
      expect(writes[0].length - 1).toBe(19);
    });

    it('takes 80 columns when the terminal does not say, or says 0', () => {
      for (const columns of [undefined, 0]) {
        const { writes, reporter } = terminal(true, columns);
        reporter.report({ progress: 1, total: 2 });
        expect(writes).toEqual([`\r${'[############............] 1/2'.padEnd(79)}`]);
      }
    });

    it('draws nothing broken on a terminal of one column', () => {
      const { writes, reporter } = terminal(true, 1);
      reporter.report({ progress: 1, total: 2, message: 'x' });
      expect(writes).toEqual(['\r']);
    });

    it('done() ends the line once, so what follows starts on a line of its own', () => {
      const { writes, reporter } = terminal(true, 40);
      reporter.report({ progress: 1, total: 2 });
      reporter.done();
      reporter.done();
      expect(writes.slice(1)).toEqual(['\n']);
    });

    it('above() clears the bar for lines of their own and draws it again below them', () => {
      const { writes, reporter } = terminal(true, 30);
      reporter.above(() => writes.push('before any bar\n'));
      reporter.report({ progress: 1, total: 2 });
      reporter.above(() => writes.push('warning: slow\n'));
      const bar = `\r${'[############............] 1/2'.slice(0, 29)}`;
      expect(writes).toEqual(['before any bar\n', bar, `\r${' '.repeat(29)}\r`, 'warning: slow\n', bar]);
    });

    it('done() writes nothing when nothing was drawn', () => {
      const { writes, reporter } = terminal(true, 40);
      reporter.done();
      expect(writes).toEqual([]);
    });
  });
});
