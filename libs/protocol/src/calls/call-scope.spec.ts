import { JsonRpcError, JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from '#libs/core';
import { HandlerFailedError, type CallContext } from '#libs/invocation';
import { McpGovernance, InProcessPolicyStore, resolveGovernanceOptions } from '#libs/governance';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { SecretRedactor } from '#libs/security';
import { RequestNote } from '../events/request-note';
import { HostState } from '../lifecycle/host-state';
import type { RegisteredHandler } from '#libs/catalog';
import type { McpCallKind } from '#libs/core';
import type { ReplyChannel } from '../requests/reply-channel';
import type { JsonRpcId } from '../wire/json-rpc';
import { admittedCall, callRequest, principal, RecordingReply, type RequestOrigin } from '../testing/protocol-testing';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import { InputRounds } from '../inputs/input-rounds';
import { RequestStateSealer } from '../inputs/request-state.sealer';
import { CallScope } from './call-scope';
import { StatelessCalls } from './stateless-calls';

/** Who calls on what session, and the call's way back. */
interface Scope extends RequestOrigin {
  reply: ReplyChannel;
}

const METHOD_OF: Record<McpCallKind, string> = {
  tool: 'tools/call',
  prompt: 'prompts/get',
  resource: 'resources/read',
};

/** The call of `target` a request with `params` makes, admitted. */
function callOf(
  { reply, ...origin }: Scope,
  id: JsonRpcId,
  kind: McpCallKind,
  target: string,
  params: Record<string, unknown>,
  note: RequestNote,
) {
  const request = callRequest(METHOD_OF[kind], params, origin, id);
  return admittedCall(request, { name: target } as unknown as RegisteredHandler, params.arguments, {
    kind,
    note,
    reply,
    target,
  });
}

function setup() {
  const session = new McpSession('s1', LATEST_PROTOCOL_VERSION);
  const scope: Scope = {
    session,
    transport: 'http',
    principal: principal('alice'),
    headers: {},
    reply: new RecordingReply(),
  };
  const note = new RequestNote('tools/call', traitsOf('tools/call'), 'http', 'alice', 's1', undefined, undefined);
  const sealer = new RequestStateSealer({ requestState: { secrets: undefined, ttlMs: 600_000 } });
  return { calls: new CallScope(new HostState(), new StatelessCalls(), new InputRounds(sealer)), scope, note };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (error: unknown) => error,
  );

describe('CallScope', () => {
  it('answers the value the body returns and leaves the note ok when the call did not fail', async () => {
    const { calls, scope, note } = setup();
    expect(await calls.run(callOf(scope, 1, 'tool', 'echo', {}, note), async () => ({ value: 'hi' }))).toBe('hi');
    expect(note).toMatchObject({ outcome: 'ok', errorCode: undefined, error: undefined });
    expect(scope.session.inFlight.size).toBe(0);
  });

  it('notes the failure and message the body returns with its value', async () => {
    const { calls, scope, note } = setup();
    const value = { content: [{ type: 'text', text: 'Ticket T-1 is closed' }], isError: true };
    expect(
      await calls.run(callOf(scope, 1, 'tool', 'close', {}, note), async () => ({
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
      calls.run(callOf(scope, 1, 'prompt', 'brief', {}, note), async () => {
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
      calls.run(callOf(scope, 1, 'resource', 'desk://x', {}, note), async () => {
        throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'bad uri');
      }),
    );
    expect(note.outcome).toBe('ok');
  });

  it("records a client's cancellation over the failure the call ended with", async () => {
    const { calls, scope, note } = setup();
    const value = await calls.run(callOf(scope, 7, 'tool', 'slow', {}, note), async (context) => {
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

  describe('what leaves', () => {
    const KEY = 'sk_live_0123456789abcdefABCDEF';
    const leaky = () => ({
      content: [{ type: 'text', text: `{"note":"the key is ${KEY}"}` }],
      structuredContent: { note: `the key is ${KEY}` },
    });
    /** A call scope with the secret redactor on, and governance with `rules` when given. */
    async function scopeWith(rules?: unknown[]) {
      const { scope, note } = setup();
      const sealer = new RequestStateSealer({ requestState: { secrets: undefined, ttlMs: 600_000 } });
      let governance: McpGovernance | undefined;
      if (rules) {
        const options = resolveGovernanceOptions({ governance: { guardrails: { rules } } }, (where, problem) => {
          throw new Error(`${where}: ${problem}`);
        })!;
        governance = new McpGovernance(
          options,
          new ToolRegistry(),
          new PromptRegistry(),
          new ResourceRegistry(),
          new InProcessPolicyStore(),
        );
        await governance.onApplicationBootstrap();
      }
      const calls = new CallScope(new HostState(), new StatelessCalls(), new InputRounds(sealer), governance, {
        redactor: new SecretRedactor(),
      });
      return { calls, scope, note };
    }

    it("redacts secrets from a tool's result, content and structured content alike", async () => {
      const { calls, scope, note } = await scopeWith();
      const result = await calls.run(callOf(scope, 1, 'tool', 'leaky', {}, note), async () => ({ value: leaky() }));
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"note":"the key is [REDACTED]"}' }],
        structuredContent: { note: 'the key is [REDACTED]' },
      });
    });

    it("lets a guardrail see a tool's result before the secret redactor: it records the key (never its value) and withholds the result", async () => {
      const { calls, scope, note } = await scopeWith([{ detectors: ['api-key'], on: 'result', action: 'block' }]);
      const result = await calls.run(callOf(scope, 1, 'tool', 'leaky', {}, note), async () => ({ value: leaky() }));
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: expect.stringMatching(
              /^The result was withheld by a guardrail: it contained api-key at \$\.content\[0\]\.text/,
            ),
          },
        ],
        isError: true,
      });
      expect(note.outcome).toBe('denied');
      expect(note.governance?.findings).toEqual([
        { detector: 'api-key', in: 'result', path: '$.content[0].text', action: 'block' },
        { detector: 'api-key', in: 'result', path: '$.structuredContent.note', action: 'block' },
      ]);
      expect(JSON.stringify(note)).not.toContain(KEY);
    });

    it('lets a flag rule record the key of a result that then leaves redacted', async () => {
      const { calls, scope, note } = await scopeWith([{ detectors: ['api-key'], on: 'result', action: 'flag' }]);
      const result = await calls.run(callOf(scope, 1, 'tool', 'leaky', {}, note), async () => ({ value: leaky() }));
      expect(JSON.stringify(result)).not.toContain(KEY);
      expect(note.governance?.findings?.map((finding) => finding.action)).toEqual(['flag', 'flag']);
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
      const reply = new RecordingReply();
      const logging: Scope = { ...scope, session, reply };
      await calls.run(callOf(logging, 1, 'tool', 'noisy', {}, note), async (context) => {
        for (const log of [context.log.debug, context.log.info, context.log.error]) log('step');
        return { value: 'done' };
      });
      sent.push(...reply.messages.map((message) => (message.params as { level: string }).level));
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

describe('CallScope.serve', () => {
  const sealer = new RequestStateSealer({ requestState: { secrets: undefined, ttlMs: 600_000 } });
  const calls = new CallScope(new HostState(), new StatelessCalls(), new InputRounds(sealer));
  const FORM = { message: 'Close T-1?', requestedSchema: { type: 'object' as const, properties: {} } };

  function scopeOf(version: string, capabilities: Record<string, unknown>, sent: string[] = []): Scope {
    const session = new McpSession(version === LATEST_PROTOCOL_VERSION ? 's1' : undefined, version);
    session.clientCapabilities = capabilities;
    session.opened = true;
    const reply: ReplyChannel = { send: (message) => (sent.push(message), true), answer: () => Promise.resolve() };
    return { session, transport: 'http', principal: principal('alice'), headers: {}, reply };
  }
  const noteOf = () =>
    new RequestNote('tools/call', traitsOf('tools/call'), 'http', 'alice', undefined, undefined, undefined);

  it("turns a 2026-07-28 call's ctx.elicit() into an InputRequiredResult, and its retry into the answer", async () => {
    const scope = scopeOf('2026-07-28', { elicitation: {} });
    const close = async (context: CallContext) => {
      const answer = await context.elicit(FORM, { key: 'confirm' });
      return { value: `closed: ${answer.action}` };
    };
    const asking = noteOf();
    const first = (await calls.serve(callOf(scope, 1, 'tool', 'close', { arguments: {} }, asking), close)) as {
      requestState: string;
    };
    // The round is no request of its own for the audit trail and metrics: the retry accounts for the call.
    expect(asking).toMatchObject({ continuedByRetry: true, outcome: 'ok' });
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { params: FORM } } });
    const retry = {
      arguments: {},
      inputResponses: { confirm: { action: 'accept' } },
      requestState: first.requestState,
    };
    const answered = noteOf();
    expect(
      await calls.serve(callOf(scopeOf('2026-07-28', { elicitation: {} }), 2, 'tool', 'close', retry, answered), close),
    ).toBe('closed: accept');
    expect(answered).toMatchObject({ continuedByRetry: false, outcome: 'ok' });
  });

  it('answers -32021 (HTTP 400) when a 2026-07-28 call samples without the sampling capability', async () => {
    const error = await failureOf(
      calls.serve(
        callOf(scopeOf('2026-07-28', { elicitation: {} }), 1, 'tool', 'needs', {}, noteOf()),
        async (context) => ({
          value: await context.sample({ messages: [], maxTokens: 5 }),
        }),
      ),
    );
    expect(error).toMatchObject({
      code: JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
      httpStatus: 400,
      data: { requiredCapabilities: { sampling: {} } },
    });
    const url = await failureOf(
      calls.serve(
        callOf(scopeOf('2026-07-28', { elicitation: {} }), 1, 'tool', 'needs', {}, noteOf()),
        async (context) => ({
          value: await context.elicit({ mode: 'url', elicitationId: 'e', url: 'https://x.example', message: 'Go' }),
        }),
      ),
    );
    expect(url).toMatchObject({ data: { requiredCapabilities: { elicitation: { url: {} } } } });
  });

  it("leaves a 2025 session as it was: its requests go to the client, a missing capability is the tool's error", async () => {
    const sent: string[] = [];
    const scope = scopeOf(LATEST_PROTOCOL_VERSION, { elicitation: {} }, sent);
    const unsupported = await calls.serve(callOf(scope, 1, 'tool', 'needs', {}, noteOf()), async (context) => ({
      value: await context.sample({ messages: [], maxTokens: 5 }).catch((error: Error) => error.message),
    }));
    expect(unsupported).toBe(
      "The client does not support sampling ('sampling'): it did not declare that capability in initialize.",
    );
    const answered = calls.serve(callOf(scope, 2, 'tool', 'close', {}, noteOf()), async (context) => ({
      value: (await context.elicit(FORM, { key: 'confirm' })).action,
    }));
    await new Promise((resolve) => setImmediate(resolve));
    const request = JSON.parse(sent[0]) as { id: string; method: string };
    expect(request.method).toBe('elicitation/create');
    scope.session.clientRequests.settle(request.id, { action: 'decline' }, undefined);
    expect(await answered).toBe('decline');
  });

  it('sends no notifications/elicitation/complete in 2026-07-28 (the revision removed it)', async () => {
    const sent: string[] = [];
    await calls.serve(callOf(scopeOf('2026-07-28', {}, sent), 1, 'tool', 't', {}, noteOf()), async (context) => {
      context.completeElicitation('e-1');
      return { value: 'ok' };
    });
    expect(sent).toEqual([]);
  });
});
