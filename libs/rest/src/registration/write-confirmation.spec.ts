import { DEFAULT_REST_CONFIRM, type RestConfirmOptions } from '../options/rest-confirm.options';
import type { RestMethod, RestOperation } from '../openapi/rest-operation';
import { WriteConfirmations } from './write-confirmation';

const operation = (method: RestMethod, path: string, operationId: string): RestOperation => ({
  method,
  path,
  operationId,
  tags: ['tickets'],
  parameters: [],
  responses: [],
  source: {},
});

const LIST = operation('get', '/api/tickets', 'listTickets');
const CREATE = operation('post', '/api/tickets', 'createTicket');
const CLOSE = operation('post', '/api/tickets/{ticketId}/close', 'closeTicket');
const UPDATE = operation('patch', '/api/tickets/{ticketId}', 'updateTicket');
const DELETE = operation('delete', '/api/tickets/{ticketId}', 'deleteTicket');
const ALL = [LIST, CREATE, CLOSE, UPDATE, DELETE];
const DESTRUCTIVE = { readOnlyHint: false, destructiveHint: true };
const WRITE = { readOnlyHint: false };

function decide(options: Partial<RestConfirmOptions> = {}) {
  const confirmations = new WriteConfirmations({ ...DEFAULT_REST_CONFIRM, ...options }, ALL);
  const decided = {
    listTickets: confirmations.decide(LIST, { readOnlyHint: true }),
    createTicket: confirmations.decide(CREATE, WRITE),
    closeTicket: confirmations.decide(CLOSE, WRITE),
    updateTicket: confirmations.decide(UPDATE, WRITE),
    deleteTicket: confirmations.decide(DELETE, DESTRUCTIVE),
  };
  return { confirmations, confirm: Object.fromEntries(Object.entries(decided).map(([k, v]) => [k, v.confirm])) };
}

describe('WriteConfirmations', () => {
  it('by default asks before destructive operations, and lists the other writes nothing decided', () => {
    const { confirm, confirmations } = decide();
    expect(confirm).toEqual({
      listTickets: undefined,
      createTicket: undefined,
      closeTicket: undefined,
      updateTicket: undefined,
      deleteTicket: true,
    });
    const warning = confirmations.report('rest.confirm', '@McpExpose({ confirm }) on the route');
    expect(warning).toEqual({
      severity: 'warning',
      where: 'rest.confirm',
      problem:
        "3 exposed write(s) run without a person's confirmation, and nothing decided so: POST /api/tickets (createTicket), " +
        'POST /api/tickets/{ticketId}/close (closeTicket), PATCH /api/tickets/{ticketId} (updateTicket). ' +
        'An agent calling them changes data at once, even where the same action done by an MCP tool is held for approval',
      fix:
        "decide each: @McpExpose({ confirm }) on the route, or rest.confirm: { ask: { operationIds: ['createTicket'] } } to confirm it, " +
        "or { skip: { operationIds: ['createTicket'] } } to let it run; or rest.confirm: 'writes' (every write asks) or 'destructive' (only DELETE and operations marked destructive)",
    });
  });

  it("takes the route's own word first, then ask and skip, then the policy", () => {
    const confirmations = new WriteConfirmations(
      {
        ...DEFAULT_REST_CONFIRM,
        ask: { operationIds: ['closeTicket', 'listTickets'] },
        skip: { operationIds: ['createTicket', 'closeTicket', 'updateTicket'] },
      },
      ALL,
    );
    expect(confirmations.decide(LIST, { readOnlyHint: true }).confirm).toBe(true);
    expect(confirmations.decide(CLOSE, WRITE).confirm).toBe(true); // ask wins over skip
    expect(confirmations.decide(CREATE, WRITE)).toEqual({ confirm: false, undecided: false });
    expect(confirmations.decide(UPDATE, WRITE, 'Change this ticket?').confirm).toBe('Change this ticket?');
    expect(confirmations.decide(DELETE, DESTRUCTIVE, false).confirm).toBe(false);
    expect(confirmations.report('rest.confirm')).toBeUndefined();
  });

  it("with writes: 'writes' every write asks; with 'none' none does; both are decisions", () => {
    expect(decide({ writes: 'writes', writesDecided: true }).confirm).toEqual({
      listTickets: undefined,
      createTicket: true,
      closeTicket: true,
      updateTicket: true,
      deleteTicket: true,
    });
    const none = decide({ writes: 'none', writesDecided: true });
    expect(Object.values(none.confirm)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(none.confirmations.report('rest.confirm')).toBeUndefined();
  });

  it("makes undecided writes an error under undecided: 'error', and warns about rules that match nothing", () => {
    const { confirmations } = decide({ undecided: 'error', skip: { operationIds: ['createTicket', 'createTickets'] } });
    expect(confirmations.report('rest.apis[0].confirm')).toMatchObject({
      severity: 'error',
      where: 'rest.apis[0].confirm',
      problem: expect.stringMatching(/^2 exposed write\(s\) run without a person's confirmation/),
    });
    expect(confirmations.unmatchedRules('rest.confirm')).toEqual([
      {
        severity: 'warning',
        where: 'rest.confirm.skip.operationIds',
        problem: '"createTickets" matches no exposed operation',
        fix: 'check the spelling against the operations exposed (rules match the exposed ones only)',
      },
    ]);
  });
});
