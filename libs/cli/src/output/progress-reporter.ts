import type { McpInvokeProgress } from '#libs/hosting';
import type { CliOutput } from '../command-line/cli-io';

const BAR_WIDTH = 24;

/**
 * Shows a call's progress on stderr: a bar redrawn in place on a terminal, plain lines
 * otherwise (a log file, a CI step).
 */
export class ProgressReporter {
  private drawn = false;

  constructor(private readonly out: CliOutput) {}

  report({ progress, total, message }: McpInvokeProgress): void {
    const share = total && total > 0 ? Math.min(1, progress / total) : undefined;
    const count = total === undefined ? `${progress}` : `${progress}/${total}`;
    if (!this.out.isTTY) {
      const percent = share === undefined ? '' : ` (${Math.round(share * 100)}%)`;
      this.out.write(`progress ${count}${percent}${message ? ` ${message}` : ''}\n`);
      return;
    }
    const filled = share === undefined ? 0 : Math.round(share * BAR_WIDTH);
    const bar = share === undefined ? '' : `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] `;
    const line = `${bar}${count}${message ? ` ${message}` : ''}`;
    const width = (this.out.columns ?? 80) - 1;
    this.out.write(`\r${line.slice(0, width).padEnd(width)}`);
    this.drawn = true;
  }

  /** Ends the bar's line, so what follows starts on a line of its own. */
  done(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
