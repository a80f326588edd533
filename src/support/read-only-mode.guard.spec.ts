import { ForbiddenException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ReadOnlyModeGuard } from './read-only-mode.guard';
import { ReportTools } from './report.tools';
import { CustomersController } from './rest/customers.controller';
import { TicketsController } from './rest/tickets.controller';
import { TicketTools } from './ticket.tools';

function contextFor(
  type: string,
  handler: (...args: never[]) => unknown,
  route: { controller?: object; method?: string } = {},
): ExecutionContext {
  return {
    getType: () => type,
    getHandler: () => handler,
    getClass: () => route.controller ?? class HealthController {},
    switchToHttp: () => ({ getRequest: () => ({ method: route.method ?? 'GET' }) }),
  } as unknown as ExecutionContext;
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

  it('leaves HTTP routes other than the REST API (health probes) alone', () => {
    expect(guard(true).canActivate(contextFor('http', () => 'ok', { method: 'POST' }))).toBe(true);
  });

  it('in read-only mode, lets GET routes of the REST API through and refuses its writes', () => {
    const get = { controller: TicketsController, method: 'GET' };
    expect(guard(true).canActivate(contextFor('http', TicketsController.prototype.get, get))).toBe(true);
    const customers = { controller: CustomersController, method: 'GET' };
    expect(guard(true).canActivate(contextFor('http', CustomersController.prototype.list, customers))).toBe(true);
    for (const [handler, method] of [
      [TicketsController.prototype.create, 'POST'],
      [TicketsController.prototype.update, 'PATCH'],
      [TicketsController.prototype.close, 'POST'],
      [TicketsController.prototype.remove, 'DELETE'],
    ] as const) {
      const route = { controller: TicketsController, method };
      expect(guard(false).canActivate(contextFor('http', handler, route))).toBe(true);
      expect(() => guard(true).canActivate(contextFor('http', handler, route))).toThrow(
        new ForbiddenException(
          'The support desk is in read-only mode: only GET routes of its REST API can be used right now.',
        ),
      );
    }
  });
});
