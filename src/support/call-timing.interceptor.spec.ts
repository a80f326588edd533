import { Logger, type CallHandler, type ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of, throwError } from 'rxjs';
import { CallTimingInterceptor } from './call-timing.interceptor';

function mcpContext(target: string, clientName?: string): ExecutionContext {
  const call = { target, clientInfo: clientName ? { name: clientName, version: '1' } : undefined };
  return {
    getType: () => 'mcp',
    getArgByIndex: (index: number) => (index === 1 ? call : {}),
  } as unknown as ExecutionContext;
}

describe('CallTimingInterceptor', () => {
  let debug: jest.SpyInstance;
  beforeEach(() => (debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined)));
  afterEach(() => debug.mockRestore());

  it('logs the tool, the client and the duration, and passes the result on', async () => {
    const next: CallHandler = { handle: () => of('result') };
    await expect(
      lastValueFrom(new CallTimingInterceptor().intercept(mcpContext('get_ticket', 'desk-agent'), next)),
    ).resolves.toBe('result');
    expect(debug).toHaveBeenCalledWith(expect.stringMatching(/^get_ticket for desk-agent took \d+\.\d ms$/));
  });

  it('logs failed calls too, and leaves the error to the host', async () => {
    const next: CallHandler = { handle: () => throwError(() => new Error('boom')) };
    await expect(
      lastValueFrom(new CallTimingInterceptor().intercept(mcpContext('close_ticket'), next)),
    ).rejects.toThrow('boom');
    expect(debug).toHaveBeenCalledWith(expect.stringMatching(/^close_ticket for unknown client took /));
  });
});
