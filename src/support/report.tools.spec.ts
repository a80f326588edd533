import { McpToolError, type McpCallContext } from '#libs/core';
import { ReportTools } from './report.tools';
import { TicketsStore } from './tickets.store';

function fakeContext(signal: AbortSignal, progress: number[]): McpCallContext {
  return { signal, reportProgress: (value: number) => void progress.push(value) } as unknown as McpCallContext;
}

describe('ReportTools.export', () => {
  const tools = new ReportTools(new TicketsStore(), { readOnly: false, reportStepMs: 1 });

  it('reports increasing progress up to the number of tickets and returns a CSV', async () => {
    const progress: number[] = [];
    const result = await tools.export({ status: 'closed' }, fakeContext(new AbortController().signal, progress));
    const closed = new TicketsStore().search({ status: 'closed', limit: 100 }).length;
    expect(progress.at(-1)).toBe(closed);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(result[0]).toEqual({ type: 'text', text: `Report of ${closed} ticket(s) with status closed: ${closed} closed.` });
    expect((result[1] as { resource: { text: string } }).resource.text.split('\n')).toHaveLength(closed + 1);
  });

  it('stops early when the call is cancelled', async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const context = fakeContext(controller.signal, progress);
    (context as { reportProgress: (value: number) => void }).reportProgress = (value) => {
      progress.push(value);
      if (value >= 8) controller.abort();
    };
    const error = await tools.export({}, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolError);
    expect((error as Error).message).toBe('Report cancelled after 8 of 20 tickets.');
    expect(progress).toEqual([4, 8]);
  });
});
