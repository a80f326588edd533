import { McpToolError, type McpCallContext } from 'nest-mcp-host';
import { ReportTools } from './report.tools';
import { TicketReports } from './ticket-reports';
import { InMemoryTicketsStore } from './in-memory-tickets.store';

interface ProgressCall {
  progress: number;
  total?: number;
  message?: string;
}

/** Just what the report uses of a call context: the signal and progress. */
function fakeContext(signal: AbortSignal, onProgress: (call: ProgressCall) => void = () => undefined) {
  const calls: ProgressCall[] = [];
  const context = {
    signal,
    reportProgress: (progress: number, total?: number, message?: string) => {
      calls.push({ progress, total, message });
      onProgress({ progress, total, message });
    },
  } as unknown as McpCallContext;
  return { context, calls };
}

describe('ReportTools.export', () => {
  const tools = new ReportTools(new TicketReports(new InMemoryTicketsStore(), { readOnly: false, reportStepMs: 1 }));

  it('reports increasing progress up to the number of tickets and returns a CSV', async () => {
    const { context, calls } = fakeContext(new AbortController().signal);
    const result = await tools.export({ status: 'closed' }, context);
    const closed = (await new InMemoryTicketsStore().search({ status: 'closed', limit: 100 })).length;
    expect(calls).toEqual([{ progress: closed, total: closed, message: `${closed} of ${closed} tickets` }]);
    expect(result[0]).toEqual({
      type: 'text',
      text: `Report of ${closed} ticket(s) with status closed: ${closed} closed.`,
    });
    expect((result[1] as { resource: { text: string } }).resource.text.split('\n')).toHaveLength(closed + 1);
  });

  it('walks every ticket in steps, each one further than the last, with a message', async () => {
    const { context, calls } = fakeContext(new AbortController().signal);
    const [summary, csv] = await tools.export({}, context);
    expect(calls.map((call) => call.progress)).toEqual([4, 8, 12, 16, 20]);
    expect(calls.every((call) => call.total === 20)).toBe(true);
    expect(calls[1].message).toBe('8 of 20 tickets');
    expect(summary).toEqual({ type: 'text', text: 'Report of 20 ticket(s): 12 open, 4 pending, 4 closed.' });
    expect(csv).toMatchObject({ type: 'resource', resource: { mimeType: 'text/csv' } });
    expect((csv as { resource: { text: string } }).resource.text.split('\n').slice(0, 2)).toEqual([
      'id,customer,status,priority,subject',
      'T-2001,C-1001,open,normal,"Cannot log in after password reset"',
    ]);
  });

  it('writes only the columns asked for, in their order', async () => {
    const { context } = fakeContext(new AbortController().signal);
    const [, csv] = await tools.export({ status: 'open', columns: ['priority', 'id'] }, context);
    expect((csv as { resource: { text: string } }).resource.text.split('\n').slice(0, 2)).toEqual([
      'priority,id',
      'normal,T-2001',
    ]);
  });

  it('stops early when the call is cancelled', async () => {
    const controller = new AbortController();
    const { context, calls } = fakeContext(controller.signal, ({ progress }) => {
      if (progress >= 8) controller.abort();
    });
    const error = await tools.export({}, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolError);
    expect((error as Error).message).toBe('Report cancelled after 8 of 20 tickets.');
    expect(calls.map((call) => call.progress)).toEqual([4, 8]);
  });

  it('does no work at all for a call cancelled before it started', async () => {
    const controller = new AbortController();
    controller.abort();
    const { context, calls } = fakeContext(controller.signal);
    await expect(tools.export({}, context)).rejects.toThrow(
      new McpToolError('Report cancelled after 0 of 20 tickets.'),
    );
    expect(calls).toEqual([]);
  });

  it('waits the configured time per step (the stand-in for slow queries)', async () => {
    const slow = new ReportTools(new TicketReports(new InMemoryTicketsStore(), { readOnly: false, reportStepMs: 40 }));
    const started = performance.now();
    await slow.export({ status: 'pending' }, fakeContext(new AbortController().signal).context); // 4 tickets: one step
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });
});
