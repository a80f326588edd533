import { traitsOf } from '../wire/mcp-method.table';
import type { McpRequestEvent } from './mcp-request-event';
import { RequestEvents } from './request-events';
import { RequestNote } from './request-note';
import { McpRequestObservers } from './request-observers';

describe('RequestEvents.finish', () => {
  const noteOf = () =>
    new RequestNote('tools/call', traitsOf('tools/call'), 'http', 'alice', undefined, undefined, undefined);

  it('tells every observer of a finished request, and of none whose call goes on in the client retry', () => {
    const observers = new McpRequestObservers();
    const seen: McpRequestEvent[] = [];
    observers.add({ observe: (event) => seen.push(event) });
    const events = new RequestEvents(observers);
    const asked = noteOf();
    asked.continuedByRetry = true;
    events.finish(asked);
    const completed = noteOf();
    events.finish(completed);
    expect(seen).toEqual([completed]);
    expect(completed.latencyMs).toBeGreaterThanOrEqual(0);
  });
});
