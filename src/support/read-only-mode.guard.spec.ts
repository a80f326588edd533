import { ForbiddenException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ReadOnlyModeGuard } from './read-only-mode.guard';
import { ReportTools } from './report.tools';
import { TicketTools } from './ticket.tools';

function contextFor(type: string, handler: (...args: never[]) => unknown): ExecutionContext {
  return { getType: () => type, getHandler: () => handler } as unknown as ExecutionContext;
}

describe('ReadOnlyModeGuard', () => {
  const guard = (readOnly: boolean) => new ReadOnlyModeGuard(new Reflector(), { readOnly, reportStepMs: 0 });

  it('lets every tool through when read-only mode is off', () => {
    expect(guard(false).canActivate(contextFor('mcp', TicketTools.prototype.close))).toBe(true);
  });

  it('in read-only mode, lets read-only tools through and refuses the others with a clear message', () => {
    expect(guard(true).canActivate(contextFor('mcp', TicketTools.prototype.get))).toBe(true);
    expect(guard(true).canActivate(contextFor('mcp', ReportTools.prototype.export))).toBe(true);
    for (const handler of [TicketTools.prototype.create, TicketTools.prototype.comment, TicketTools.prototype.close]) {
      expect(() => guard(true).canActivate(contextFor('mcp', handler))).toThrow(
        new ForbiddenException('The support desk is in read-only mode: only read-only tools can be called right now.'),
      );
    }
  });

  it('leaves HTTP routes (health probes) alone', () => {
    expect(guard(true).canActivate(contextFor('http', () => 'ok'))).toBe(true);
  });
});
