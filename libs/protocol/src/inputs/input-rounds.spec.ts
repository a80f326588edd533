import { JsonRpcError, JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, McpClientRequestError } from '#libs/core';
import { CallCancellation } from '#libs/invocation';
import { RequestNote } from '../events/request-note';
import { callRequest, principal as callerOf, type RequestOrigin } from '../testing/protocol-testing';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import type { InputRequiredResult, InputRound } from './input-round';
import { InMemoryAnswerClaims } from './in-memory-answer-claims';
import { InputRounds } from './input-rounds';
import { RequestStateSealer } from './request-state.sealer';

const SECRET = 'a-request-state-secret-of-32-bytes!';
const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};
const QUESTION = { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 9 };
const ALICE = { action: 'accept', content: { name: 'Alice' } };
const PARIS = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm', stopReason: 'endTurn' };
const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };

function scopeOf(principal = 'alice', version = '2026-07-28'): RequestOrigin {
  return {
    session: new McpSession(undefined, version),
    transport: 'http',
    principal: callerOf(principal),
    headers: {},
  };
}

const noteOf = (method = 'tools/call') =>
  new RequestNote(method, traitsOf(method), 'http', 'alice', undefined, undefined, undefined);

/** What a handler may do with its client: the calls `CallContext` makes of the round. */
interface Client {
  request(method: string, params: Record<string, unknown>, key?: string, onlyWhenAsked?: boolean): Promise<unknown>;
  missing(capability: string): Promise<never>;
  signal: AbortSignal;
}

/**
 * Runs `handler` as one request of a call would (the round races it, as `CallScope.serve` does)
 * and returns how the request was answered.
 */
async function call<T>(
  rounds: InputRounds,
  params: Record<string, unknown>,
  handler: (client: Client) => Promise<T>,
  scope = scopeOf(),
  note = noteOf(),
): Promise<{ value: T | InputRequiredResult; cancellation: CallCancellation }> {
  const round = rounds.open(callRequest('tools/call', params, scope), note, 'greet') as InputRound;
  const cancellation = new CallCancellation();
  const client: Client = {
    request: (method, requestParams, key, onlyWhenAsked) =>
      round.request(method, requestParams, 60_000, cancellation.signal, { key, onlyWhenAsked }),
    missing: (capability) =>
      round.missingCapability(capability, {}, `${capability} ('${capability}')`, cancellation.signal),
    signal: cancellation.signal,
  };
  const running = handler(client).then((value) => ({ value }));
  const { value } = await round.race(running, cancellation);
  return { value, cancellation };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (error: unknown) => error as JsonRpcError,
  );

const asked = (value: unknown) => value as InputRequiredResult;

describe('InputRounds', () => {
  const rounds = new InputRounds(new RequestStateSealer({ requestState: { secrets: [SECRET], ttlMs: 600_000 } }));
  /** A confirmation: takes only an answer the client was asked for (`onlyWhenAsked`). */
  const confirm = (client: Client) =>
    client.request(
      'elicitation/create',
      { message: 'Delete it?', requestedSchema: NAME_FORM.requestedSchema },
      'ok',
      true,
    );
  const greet = async (client: Client) => {
    const answer = (await client.request('elicitation/create', NAME_FORM, 'user_name')) as typeof ALICE;
    return `Hello, ${answer.content.name}!`;
  };

  it('opens no round for a 2025 session or a request that runs no entry', () => {
    expect(
      rounds.open(callRequest('tools/call', {}, scopeOf('alice', LATEST_PROTOCOL_VERSION)), noteOf(), 'greet'),
    ).toBeUndefined();
    expect(rounds.open(callRequest('tools/call', {}, scopeOf()), noteOf('tools/list'), 'greet')).toBeUndefined();
    expect(rounds.open(callRequest('tools/call', {}, scopeOf()), noteOf('tasks/run'), 'greet')).toBeUndefined();
    expect(rounds.open(callRequest('tools/call', {}, scopeOf()), noteOf('prompts/get'), 'greet')).toBeDefined();
    expect(rounds.open(callRequest('tools/call', {}, scopeOf()), noteOf('resources/read'), 'kb://x')).toBeDefined();
  });

  it('answers a request the client has not answered with an InputRequiredResult, and cancels the run', async () => {
    let after: unknown;
    const { value, cancellation } = await call(rounds, { arguments: {} }, (client) =>
      greet(client).catch((error: unknown) => {
        after = error;
        throw error;
      }),
    );
    expect(value).toEqual({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create', params: NAME_FORM } },
      requestState: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
    });
    expect(Object.keys(value as object)[0]).toBe('resultType');
    expect(cancellation.isCancelled).toBe(true);
    // The abandoned run unwinds: its request rejects, so its `finally` blocks run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(after).toBeInstanceOf(McpClientRequestError);
    expect((after as McpClientRequestError).reason).toBe('cancelled');
  });

  it('gathers every request made before the run settles into one round, unnamed ones keyed by their place', async () => {
    const { value } = await call(rounds, {}, (client) =>
      Promise.all([
        client.request('elicitation/create', NAME_FORM, 'user_name'),
        client.request('sampling/createMessage', QUESTION),
        client.request('roots/list', {}),
      ]),
    );
    expect(asked(value).inputRequests).toEqual({
      user_name: { method: 'elicitation/create', params: NAME_FORM },
      '2': { method: 'sampling/createMessage', params: QUESTION },
      '3': { method: 'roots/list', params: {} },
    });
  });

  it('runs the handler again with the answers: from inputResponses, then carried in requestState', async () => {
    const twoSteps = async (client: Client) => {
      const name = (await client.request('elicitation/create', NAME_FORM, 'step1')) as typeof ALICE;
      const capital = (await client.request('sampling/createMessage', QUESTION, 'step2')) as typeof PARIS;
      return `${name.content.name}: ${capital.content.text}`;
    };
    const first = asked((await call(rounds, {}, twoSteps)).value);
    expect(Object.keys(first.inputRequests)).toEqual(['step1']);
    const second = asked(
      (await call(rounds, { inputResponses: { step1: ALICE }, requestState: first.requestState }, twoSteps)).value,
    );
    expect(Object.keys(second.inputRequests)).toEqual(['step2']);
    expect(second.requestState).not.toBe(first.requestState);
    // The last round brings only the last answer: the first one comes back in the state.
    const done = await call(rounds, { inputResponses: { step2: PARIS }, requestState: second.requestState }, twoSteps);
    expect(done.value).toBe('Alice: Paris');
    expect(done.cancellation.isCancelled).toBe(false);
  });

  it('takes answers without a state, ignores keys it did not ask for, and asks again for missing ones', async () => {
    const extra = { inputResponses: { user_name: ALICE, unknown: { whatever: 1 }, other: 42 } };
    expect((await call(rounds, extra, greet)).value).toBe('Hello, Alice!');
    const wrongKey = asked((await call(rounds, { inputResponses: { wrong_key: ALICE } }, greet)).value);
    expect(Object.keys(wrongKey.inputRequests)).toEqual(['user_name']);
    const partial = async (client: Client) =>
      Promise.all([client.request('elicitation/create', NAME_FORM, 'a'), client.request('roots/list', {}, 'b')]);
    const first = asked((await call(rounds, {}, partial)).value);
    const again = asked(
      (await call(rounds, { inputResponses: { a: ALICE }, requestState: first.requestState }, partial)).value,
    );
    expect(again.inputRequests).toEqual({ b: { method: 'roots/list', params: {} } });
    const done = await call(rounds, { inputResponses: { b: ROOTS }, requestState: again.requestState }, partial);
    expect(done.value).toEqual([ALICE, ROOTS]);
  });

  it('asks again when the handler asks something else than the request an answer was given for', async () => {
    let account = 'T-1';
    const close = async (client: Client) => {
      const form = { message: `Close ${account}?`, requestedSchema: { type: 'object', properties: {} } };
      return client.request('elicitation/create', form, 'confirm');
    };
    const first = asked((await call(rounds, {}, close)).value);
    account = 'T-2';
    const retry = { inputResponses: { confirm: { action: 'accept' } }, requestState: first.requestState };
    const again = asked((await call(rounds, retry, close)).value);
    expect(again.inputRequests.confirm.params.message).toBe('Close T-2?');
  });

  it('takes an answer the client was not asked for only when the request allows it', async () => {
    const unasked = { inputResponses: { ok: { action: 'accept', content: { name: 'yes' } } } };
    // Sent without being asked: asked again.
    const first = asked((await call(rounds, unasked, confirm)).value);
    expect(Object.keys(first.inputRequests)).toEqual(['ok']);
    // The retry of the round that asked: taken.
    const done = await call(rounds, { ...unasked, requestState: first.requestState }, confirm);
    expect(done.value).toEqual(unasked.inputResponses.ok);
    // A state that asked the same question without the restriction does not stand in for it.
    const lax = asked(
      (
        await call(rounds, {}, (client) =>
          client.request(
            'elicitation/create',
            { message: 'Delete it?', requestedSchema: NAME_FORM.requestedSchema },
            'ok',
          ),
        )
      ).value,
    );
    const swapped = asked((await call(rounds, { ...unasked, requestState: lax.requestState }, confirm)).value);
    expect(Object.keys(swapped.inputRequests)).toEqual(['ok']);
  });

  it('takes an answer that authorises something once: the same retry sent again is asked again', async () => {
    const first = asked((await call(rounds, {}, confirm)).value);
    const retry = {
      inputResponses: { ok: { action: 'accept', content: { name: 'yes' } } },
      requestState: first.requestState,
    };
    expect((await call(rounds, retry, confirm)).value).toEqual(retry.inputResponses.ok);
    const replayed = asked((await call(rounds, retry, confirm)).value);
    expect(Object.keys(replayed.inputRequests)).toEqual(['ok']);
    expect(replayed.requestState).not.toBe(first.requestState);
    // An answer that authorises nothing may be used as often as the state is brought back.
    const name = asked(
      (await call(rounds, {}, (client) => client.request('elicitation/create', NAME_FORM, 'n'))).value,
    );
    const again = { inputResponses: { n: ALICE }, requestState: name.requestState };
    for (let i = 0; i < 2; i++)
      expect(
        (await call(rounds, again, (client) => client.request('elicitation/create', NAME_FORM, 'n'))).value,
      ).toEqual(ALICE);
  });

  it('asks again for an authorising answer a host restarted with the same secret never saw used', async () => {
    const sealer = () => new RequestStateSealer({ requestState: { secrets: [SECRET], ttlMs: 600_000 } });
    const before = new InputRounds(sealer(), new InMemoryAnswerClaims());
    const first = asked((await call(before, {}, confirm)).value);
    const retry = {
      inputResponses: { ok: { action: 'accept', content: { name: 'yes' } } },
      requestState: first.requestState,
    };
    expect((await call(before, retry, confirm)).value).toEqual(retry.inputResponses.ok);
    // The process restarts: its claims are gone, the sealed state is still valid.
    const after = new InputRounds(sealer(), new InMemoryAnswerClaims());
    const replayed = asked((await call(after, retry, confirm)).value);
    expect(Object.keys(replayed.inputRequests)).toEqual(['ok']);
    // Asked again under the new generation, the user's answer counts, once.
    const fresh = { ...retry, requestState: replayed.requestState };
    expect((await call(after, fresh, confirm)).value).toEqual(retry.inputResponses.ok);
    expect(Object.keys(asked((await call(after, fresh, confirm)).value).inputRequests)).toEqual(['ok']);
    // An answer that authorises nothing is taken from a state of any generation.
    const name = asked(
      (await call(before, {}, (client) => client.request('elicitation/create', NAME_FORM, 'n'))).value,
    );
    const named = { inputResponses: { n: ALICE }, requestState: name.requestState };
    expect((await call(after, named, (client) => client.request('elicitation/create', NAME_FORM, 'n'))).value).toEqual(
      ALICE,
    );
  });

  it('keys a name used twice with a suffix, and drops elicitationId from URL-mode elicitation', async () => {
    const url = { mode: 'url', elicitationId: 'e-1', url: 'https://desk.example/approve', message: 'Approve it' };
    const { value } = await call(rounds, {}, (client) =>
      Promise.all([
        client.request('elicitation/create', NAME_FORM, 'name'),
        client.request('elicitation/create', url, 'name'),
      ]),
    );
    expect(asked(value).inputRequests).toEqual({
      name: { method: 'elicitation/create', params: NAME_FORM },
      'name-2': {
        method: 'elicitation/create',
        params: { mode: 'url', url: 'https://desk.example/approve', message: 'Approve it' },
      },
    });
  });

  it('refuses an answer that is not a result of the request, naming the key', async () => {
    const error = await failureOf(call(rounds, { inputResponses: { user_name: 12345 } }, greet));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(JsonRpcErrorCode.INVALID_PARAMS);
    expect(error.message).toBe(
      `Invalid params: "inputResponses.user_name" must be an object (the client's result of elicitation/create)`,
    );
    const wrongAction = await failureOf(call(rounds, { inputResponses: { user_name: { action: 'ok' } } }, greet));
    expect(wrongAction.message).toContain('"action" must be "accept", "decline" or "cancel"');
  });

  it('refuses malformed inputResponses and requestState before anything runs', () => {
    expect(() =>
      rounds.open(callRequest('tools/call', { inputResponses: null }, scopeOf()), noteOf(), 'greet'),
    ).toThrow(
      'Invalid params: "inputResponses" must be an object mapping the keys of "inputRequests" to the client\'s results',
    );
    expect(() => rounds.open(callRequest('tools/call', { inputResponses: [] }, scopeOf()), noteOf(), 'greet')).toThrow(
      JsonRpcError,
    );
    expect(() => rounds.open(callRequest('tools/call', { requestState: 7 }, scopeOf()), noteOf(), 'greet')).toThrow(
      'Invalid params: "requestState" must be the string of the last InputRequiredResult, unchanged',
    );
  });

  describe('a requestState it did not seal for this very request', () => {
    const stateOf = async (params: Record<string, unknown> = { arguments: { ticket: 'T-1' } }) =>
      asked((await call(rounds, params, greet)).value).requestState;
    const refusal = (params: Record<string, unknown>, scope = scopeOf(), note = noteOf()) => {
      try {
        rounds.open(callRequest('tools/call', params, scope), note, 'greet');
      } catch (error) {
        expect((error as JsonRpcError).code).toBe(JsonRpcErrorCode.INVALID_PARAMS);
        return (error as Error).message;
      }
      return 'opened';
    };

    it('refuses one that was altered, or sealed by a host with another secret', async () => {
      const state = await stateOf();
      const args = { ticket: 'T-1' };
      expect(refusal({ arguments: args, requestState: `${state}-TAMPERED` })).toMatch(
        /^Invalid params: "requestState" failed its integrity check: it was altered, or sealed by a host with another requestState secret; send the request again without/,
      );
      const other = new InputRounds(new RequestStateSealer({ requestState: { secrets: undefined, ttlMs: 600_000 } }));
      expect(() =>
        other.open(callRequest('tools/call', { arguments: args, requestState: state }, scopeOf()), noteOf(), 'greet'),
      ).toThrow(/failed its integrity check/);
      expect(refusal({ arguments: args, requestState: state })).toBe('opened');
    });

    it('refuses one brought by another principal', async () => {
      const state = await stateOf();
      expect(refusal({ arguments: { ticket: 'T-1' }, requestState: state }, scopeOf('mallory'))).toMatch(
        /^Invalid params: "requestState" was issued to another caller/,
      );
    });

    it('refuses one brought with other arguments, another entry or another method', async () => {
      const state = await stateOf();
      const otherRequest = /^Invalid params: "requestState" was issued for another request/;
      expect(refusal({ arguments: { ticket: 'T-2' }, requestState: state })).toMatch(otherRequest);
      expect(refusal({ requestState: state })).toMatch(otherRequest);
      expect(refusal({ arguments: { ticket: 'T-1' }, requestState: state }, scopeOf(), noteOf('prompts/get'))).toMatch(
        otherRequest,
      );
      expect(() =>
        rounds.open(
          callRequest('tools/call', { arguments: { ticket: 'T-1' }, requestState: state }, scopeOf()),
          noteOf(),
          'farewell',
        ),
      ).toThrow(otherRequest);
      // The order of the arguments' keys does not matter.
      const two = await stateOf({ arguments: { a: 1, b: 2 } });
      expect(refusal({ arguments: { b: 2, a: 1 }, requestState: two })).toBe('opened');
    });

    it('refuses one brought back after its time', async () => {
      const short = new InputRounds(new RequestStateSealer({ requestState: { secrets: [SECRET], ttlMs: 60_000 } }));
      const state = asked((await call(short, {}, greet)).value).requestState;
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 59_000);
      try {
        expect(
          short.open(callRequest('tools/call', { requestState: state }, scopeOf()), noteOf(), 'greet'),
        ).toBeDefined();
        clock.mockReturnValue(now + 61_000);
        expect(() =>
          short.open(callRequest('tools/call', { requestState: state }, scopeOf()), noteOf(), 'greet'),
        ).toThrow(
          'Invalid params: "requestState" expired (it is accepted for 60 s after the input was requested); send the request again without "requestState" and "inputResponses" to start over',
        );
      } finally {
        clock.mockRestore();
      }
    });
  });

  it('ends the request with -32021 when the handler asks for what the client did not declare', async () => {
    let continued = false;
    const error = await failureOf(
      call(rounds, {}, async (client) => {
        await client.missing('sampling');
        continued = true;
      }),
    );
    expect(error.code).toBe(JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY);
    expect(error.httpStatus).toBe(400);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    expect(error.message).toBe(
      'Missing client capability "sampling": tools/call "greet" asks the client for sampling (\'sampling\'); declare it in "_meta"."io.modelcontextprotocol/clientCapabilities"',
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(continued).toBe(false);
  });

  it('answers with the handler result when it settles without waiting for a request', async () => {
    const { value } = await call(rounds, {}, async (client) => {
      void client.request('roots/list', {}).catch(() => undefined);
      return 'done without the roots';
    });
    expect(value).toBe('done without the roots');
  });
});
