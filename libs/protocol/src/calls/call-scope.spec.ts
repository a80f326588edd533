import { JsonRpcError, JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from '#libs/core';
import { HandlerFailedError } from '#libs/invocation';
import { RequestNote } from '../events/request-note';
import { HostState } from '../lifecycle/host-state';
import type { DispatchScope } from '../methods/method-handler';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import { CallScope } from './call-scope';
import { StatelessCalls } from './stateless-calls';

function setup() {
  const session = new McpSession('s1', LATEST_PROTOCOL_VERSION);
  const scope: DispatchScope = {
    session,
    transport: 'http',
    principal: { id: 'alice', scopes: [], roles: [], claims: {} },
    headers: {},
    notify: () => true,
  };
  const note = new RequestNote('tools/call', traitsOf('tools/call'), 'http', 'alice', 's1', undefined, undefined);
  return { calls: new CallScope(new HostState(), new StatelessCalls()), scope, note };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (error: unknown) => error,
  );

describe('CallScope', () => {
  it('answers the value the body returns and leaves the note ok when the call did not fail', async () => {
    const { calls, scope, note } = setup();
    expect(await calls.run(scope, 1, 'tool', 'echo', {}, note, async () => ({ value: 'hi' }))).toBe('hi');
    expect(note).toMatchObject({ outcome: 'ok', errorCode: undefined, error: undefined });
    expect(scope.session.inFlight.size).toBe(0);
  });

  it('notes the failure and message the body returns with its value', async () => {
    const { calls, scope, note } = setup();
    const value = { content: [{ type: 'text', text: 'Ticket T-1 is closed' }], isError: true };
    expect(
      await calls.run(scope, 1, 'tool', 'close', {}, note, async () => ({
        value,
        failure: 'tool_error',
        failureMessage: 'Ticket T-1 is closed',
      })),
    ).toBe(value);
    expect(note).toMatchObject({ outcome: 'tool_error', errorCode: undefined, error: 'Ticket T-1 is closed' });
  });

  it('notes the outcome a HandlerFailedError carries and rethrows it; the JSON-RPC error noted after keeps that outcome', async () => {
    const { calls, scope, note } = setup();
    const thrown = new HandlerFailedError(
      JsonRpcErrorCode.INTERNAL_ERROR,
      'prompts/get "brief" failed: Forbidden resource',
      undefined,
      'denied',
    );
    const error = await failureOf(
      calls.run(scope, 1, 'prompt', 'brief', {}, note, async () => {
        throw thrown;
      }),
    );
    expect(error).toBe(thrown);
    expect(note.outcome).toBe('denied');
    // What the dispatcher does next with any JSON-RPC error.
    note.fail('error', thrown.code, thrown.message);
    expect(note).toMatchObject({
      outcome: 'denied',
      errorCode: JsonRpcErrorCode.INTERNAL_ERROR,
      error: 'prompts/get "brief" failed: Forbidden resource',
    });
  });

  it('notes nothing for a plain protocol error (the dispatcher records it from its code)', async () => {
    const { calls, scope, note } = setup();
    await failureOf(
      calls.run(scope, 1, 'resource', 'desk://x', {}, note, async () => {
        throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'bad uri');
      }),
    );
    expect(note.outcome).toBe('ok');
  });

  it("records a client's cancellation over the failure the call ended with", async () => {
    const { calls, scope, note } = setup();
    const value = await calls.run(scope, 7, 'tool', 'slow', {}, note, async (context) => {
      scope.session.inFlight.get(7)!.cancelByClient('user pressed stop');
      return {
        value: context.signal.aborted,
        failure: 'cancelled',
        failureMessage: 'Call to tool "slow" was cancelled.',
      };
    });
    expect(value).toBe(true);
    expect(note).toMatchObject({
      outcome: 'cancelled',
      error: 'Cancelled by the client: user pressed stop',
      withdrawn: true,
    });
  });

  describe('log messages of a call', () => {
    /** The `notifications/message` levels a call logging at every level sends, on a session of `version` with `level`. */
    async function logsSent(version: string, level: 'info' | undefined): Promise<string[]> {
      const { calls, scope, note } = setup();
      const sent: string[] = [];
      const session =
        version === LATEST_PROTOCOL_VERSION ? new McpSession('s1', version) : new McpSession(undefined, version);
      session.logLevel = level;
      const logging: DispatchScope = {
        ...scope,
        session,
        notify: (message) => sent.push((JSON.parse(message) as { params: { level: string } }).params.level) > 0,
      };
      await calls.run(logging, 1, 'tool', 'noisy', {}, note, async (context) => {
        for (const log of [context.log.debug, context.log.info, context.log.error]) log('step');
        return { value: 'done' };
      });
      return sent;
    }

    it('sends every level to a 2025-era session that set none, and those at or above the one it set', async () => {
      expect(await logsSent(LATEST_PROTOCOL_VERSION, undefined)).toEqual(['debug', 'info', 'error']);
      expect(await logsSent(LATEST_PROTOCOL_VERSION, 'info')).toEqual(['info', 'error']);
    });

    it('sends none to a 2026-07-28 request without a log level in its _meta, and follows the level it gives', async () => {
      expect(await logsSent(STATELESS_PROTOCOL_VERSION, undefined)).toEqual([]);
      expect(await logsSent(STATELESS_PROTOCOL_VERSION, 'info')).toEqual(['info', 'error']);
    });
  });
});
