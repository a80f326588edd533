import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditRecord } from '#libs/security';
import type { Answer } from './answers';
import { FACADE_AT_CRM, SHUTDOWN_TIMEOUT_MS, THROTTLE_LIMIT, type MatrixWorld } from './matrix-world';
import type { MatrixSession, PolicyId, Surface } from './surfaces';

/** A policy's cell: what must hold on one surface. */
export interface Policy {
  readonly id: PolicyId;
  /** What the promise says, as docs/security.md's matrix names it. */
  readonly promise: string;
  /** The audit outcomes this policy's refusals are recorded with (every refusal outcome belongs to one policy). */
  readonly outcomes: readonly AuditRecord['outcome'][];
  run(surface: Surface, world: MatrixWorld): Promise<void>;
}

const RETRY_AFTER_META = 'nest-mcp-host/retryAfterSeconds';
/** The desk's slow tool, as the upstream records it. */
const DESK_SLOW = 'export_ticket_report';
const APPROVAL_META = 'nest-mcp-host/approval';
const SHUTDOWN_TEXT = (tool: string) =>
  `Call to tool "${tool}" was cancelled: the host is shutting down and the call did not finish in time. It may have done part of its work; check before you retry it.`;

/** The name a surface's call is recorded under: the tool `call_tool` called, else the call's own. */
const targetOf = (surface: Surface, call: { name: string; args: Record<string, unknown> }) =>
  surface.reaches === 'call_tool' ? String(call.args.name) : call.name;

/** Waits until `records` of `trail` hold one that `matches` (the trail is written off the hot path). */
export async function recordOf(
  world: MatrixWorld,
  trail: string,
  matches: (record: AuditRecord) => boolean,
  timeoutMs = 5_000,
): Promise<AuditRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = world.trail(trail).filter(matches).at(-1);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(
        `no record in the ${trail} trail matches; its last: ${JSON.stringify(world.trail(trail).slice(-3))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function withSession<T>(
  surface: Surface,
  world: MatrixWorld,
  role: Parameters<Surface['open']>[1],
  body: (session: MatrixSession) => Promise<T>,
): Promise<T> {
  const session = await surface.open(world, role);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

/**
 * What a command line printed: stderr, then the text of a result `--output json` printed on
 * stdout (an error result included).
 */
function printed(answer: Answer): string {
  if (answer.kind !== 'exit') return '';
  let text = answer.stdout;
  try {
    const result = JSON.parse(answer.stdout) as { content?: { type: string; text?: string }[] };
    text = result.content?.find((item) => item.type === 'text')?.text ?? answer.stdout;
  } catch {
    // not JSON: as printed
  }
  return `${answer.stderr}${text}`;
}

/** The answer of a tool the caller may not use: that of a tool that does not exist. */
function expectUnknown(answer: Answer, tool: string): void {
  switch (answer.kind) {
    case 'error':
      expect({ code: answer.code, message: answer.message }).toEqual({
        code: -32602,
        message: expect.stringContaining(`Unknown tool: ${tool}`),
      });
      return;
    case 'result': // call_tool answers its own result
      expect({ isError: answer.isError, text: answer.text }).toEqual({
        isError: true,
        text: `Unknown tool: ${tool}. Use search_tools to find the tools you can call.`,
      });
      return;
    case 'exit':
      expect({ code: answer.code, stderr: answer.stderr.trim() }).toEqual({
        code: 4,
        stderr: `Unknown tool "${tool}". Run "desk list" to see the tools.`,
      });
      return;
    default:
      throw new Error(`expected "unknown tool", got ${JSON.stringify(answer)}`);
  }
}

function expectSucceeded(answer: Answer): void {
  if (answer.kind === 'exit') expect({ code: answer.code, stderr: answer.stderr }).toMatchObject({ code: 0 });
  else expect(answer).toMatchObject({ kind: 'result', isError: false });
}

/** The tool names a list answered (failing on a refusal). */
function namesOf(listed: Answer | string[]): string[] {
  if (Array.isArray(listed)) return listed;
  throw new Error(`expected a list, got ${JSON.stringify(listed)}`);
}

/**
 * Every call is authenticated: no credential, or one that is not valid, is refused before anything
 * runs — on the surfaces that take one (HTTP); where trusted code calls (in process, the command
 * line), no credential means the configured local operator, and one that is not valid is refused.
 */
const CREDENTIAL: Policy = {
  id: 'credential',
  promise: 'no or an invalid credential is refused before anything runs',
  outcomes: ['unauthenticated'],
  async run(surface, world) {
    const { read } = surface.entries;
    const invalid = await withSession(surface, world, 'invalid', (session) => session.call(read));
    if (invalid.kind === 'exit')
      expect({ code: invalid.code, stderr: invalid.stderr.trim() }).toEqual({
        code: 3,
        stderr: 'Unauthorized: The API key is not valid',
      });
    else expect(invalid).toMatchObject({ kind: 'refused', status: 401 });
    const anonymous = await withSession(surface, world, 'anonymous', (session) => session.call(read));
    if (surface.withoutCredential === 'refused') {
      expect(anonymous).toMatchObject({ kind: 'refused', status: 401 });
      return;
    }
    // Trusted code without a credential acts as the local operator, and the trail says so.
    expectSucceeded(anonymous);
    const record = await recordOf(
      world,
      surface.trail,
      (entry) => entry.target === targetOf(surface, read) && entry.principal === 'local-operator',
    );
    expect(record).toMatchObject({ transport: surface.transport, outcome: 'ok' });
  },
};

/** What a caller may not use is neither listed nor callable, and answers exactly as a tool that does not exist. */
const HIDDEN: Policy = {
  id: 'hidden',
  promise: 'a hidden entry is neither listed nor callable (list ⇔ callable)',
  outcomes: ['not_found'],
  async run(surface, world) {
    const { hidden } = surface.entries;
    const target = targetOf(surface, hidden);
    await withSession(surface, world, 'reader', async (session) => {
      const listed = namesOf(await session.list());
      expect(listed).not.toContain(target);
      const refused = await session.call(hidden);
      if (refused.kind === 'exit')
        // The command line runs the application's own code: its catalog is no secret to whoever runs
        // it, so it says the tool exists and is not theirs (README's "refused, exit 3").
        expect({ code: refused.code, stderr: refused.stderr.trim() }).toEqual({
          code: 3,
          stderr: `Refused: the tool "${target}" is not available to the API key given.`,
        });
      else expectUnknown(refused, target);
      // Elsewhere a tool that does not exist at all is answered the same way: nothing tells them apart.
      const missing = { ...hidden, name: `${hidden.name}_missing` };
      const ghost =
        surface.reaches === 'call_tool'
          ? { name: hidden.name, args: { ...hidden.args, name: `${target}_missing` } }
          : missing;
      expectUnknown(await session.call(ghost), `${target}_missing`);
    });
    if (surface.reaches === 'view') {
      // A view's call of a tool its principal may not call: refused as above, recorded as a view's.
      const reader = surface.principal('reader');
      const record = await recordOf(
        world,
        surface.trail,
        (entry) => entry.target === target && entry.principal === reader && entry.outcome === 'denied',
      );
      expect(record).toMatchObject({ method: 'tools/call', transport: surface.transport, origin: 'view' });
    }
    await withSession(surface, world, 'caller', async (session) => {
      if (surface.reaches !== 'call_tool') expect(namesOf(await session.list())).toContain(target);
    });
  },
};

/**
 * A call that needs a person's approval is held until an approver decides it; the caller's own
 * decision is refused (its credential proves no person decided); once approved, the retry runs once.
 */
const APPROVAL: Policy = {
  id: 'approval',
  promise: 'an operation that needs approval is held until a person approves, never approvable by the caller',
  outcomes: ['denied'],
  async run(surface, world) {
    const ticket = await surface.ticket(world);
    const call = surface.entries.confirm(ticket);
    const target = targetOf(surface, call);
    const caller = surface.principal('caller');
    await withSession(surface, world, 'caller', async (session) => {
      const desk = surface.approvals(world, session);
      const held = await session.call(call);
      const asksItsTerminal = held.kind === 'exit';
      if (asksItsTerminal) {
        // The command line asks the person at its terminal; with none (and no --yes), it is not run.
        expect({ code: held.code, stderr: held.stderr }).toEqual({
          code: 3,
          stderr: expect.stringContaining('Not confirmed: there is no terminal to ask on; pass --yes to confirm.'),
        });
        const refused = await recordOf(
          world,
          surface.trail,
          (entry) => entry.target === target && entry.principal === caller,
        );
        expect(refused.outcome).toBe('denied');
        // A call of the same caller held elsewhere for an approver: decided with the command line.
        expectHeld(await surface.holdElsewhere!(world, call));
      } else expectHeld(held);
      const id = await desk.pending(caller, target);
      expect(id).toEqual(expect.any(String));
      // The caller's own credential approves nothing: refused (403), or not even shown to it (404).
      const own = await desk.decide(id!, 'caller', caller);
      if (own.status === 403) expect(own.message).toContain('may not decide a request of its own');
      else expect(own).toEqual({ status: 404, message: expect.stringContaining(`No approval request ${id}`) });
      if (!asksItsTerminal) expectHeld(await session.call(call));
      const approved = await desk.decide(id!, 'approver', 'approver');
      expect(approved).toMatchObject({ status: 200 });
      expectSucceeded(await session.call(call));
      // Used once: the same call again needs a decision of its own.
      const again = await session.call(call);
      if (asksItsTerminal) expect(again).toMatchObject({ kind: 'exit', code: 3 });
      else expectHeld(again);
    });
  },
};

function expectHeld(answer: Answer): void {
  if (answer.kind !== 'result' || !answer.isError || !answer.meta[APPROVAL_META])
    throw new Error(`expected a call held for approval, got ${JSON.stringify(answer)}`);
  expect((answer as { meta: Record<string, unknown> }).meta[APPROVAL_META]).toMatchObject({ status: 'pending' });
}

/** Calls over the limit are refused with when to retry, in words and in a form a client can act on. */
const THROTTLING: Policy = {
  id: 'throttling',
  promise: 'calls over the limit are refused with the retry time',
  // Beside the throttler: the other limits of how much a caller may ask (concurrency, tasks, request sizes).
  outcomes: ['throttled', 'limited'],
  async run(surface, world) {
    const call = surface.entries.throttled;
    const target = targetOf(surface, call);
    await withSession(surface, world, 'caller', async (session) => {
      for (let i = 0; i < THROTTLE_LIMIT; i++) expectSucceeded(await session.call(call));
      const refused = await session.call(call);
      const pattern = new RegExp(
        `Rate limit reached for "${target}": at most ${THROTTLE_LIMIT} call\\(s\\) per 60 s\\. Retry in (\\d+) s\\.`,
      );
      if (refused.kind === 'exit') {
        expect({ code: refused.code, printed: printed(refused) }).toEqual({
          code: 3,
          printed: expect.stringMatching(pattern),
        });
      } else {
        expect(refused).toMatchObject({ kind: 'result', isError: true, text: expect.stringMatching(pattern) });
        const seconds = Number(pattern.exec((refused as { text: string }).text)![1]);
        expect(seconds).toBeGreaterThan(0);
        expect((refused as { meta: Record<string, unknown> }).meta[RETRY_AFTER_META]).toBe(seconds);
      }
      const record = await recordOf(
        world,
        surface.trail,
        (entry) =>
          entry.target === target && entry.principal === surface.principal('caller') && entry.outcome === 'throttled',
      );
      expect(record.error).toMatch(pattern);
    });
  },
};

/** Arguments the tool does not declare, or that break its schema, are refused by name before it runs. */
const ARGUMENTS: Policy = {
  id: 'arguments',
  promise: 'undeclared and invalid arguments are named, and nothing runs',
  outcomes: ['invalid'],
  async run(surface, world) {
    const { call, named } = surface.entries.invalid;
    const answer = await withSession(surface, world, 'caller', (session) => session.call(call));
    if (answer.kind === 'http') {
      // The route's own validation: 400, one message per argument (the route never ran). A refusal
      // nothing but the route's validation decided is the HTTP server's to log, not the trail's.
      expect(answer.status).toBe(400);
      const messages = answer.body.message as string[];
      for (const name of named) expect(messages.some((message) => message.includes(name))).toBe(true);
      return;
    }
    const text = answer.kind === 'exit' ? printed(answer) : answer.kind === 'result' ? answer.text : '';
    if (answer.kind === 'exit') expect(answer.code).toBe(2);
    else expect(answer).toMatchObject({ kind: 'result', isError: true });
    expect(text).toMatch(new RegExp(`^Invalid arguments for tool "${targetOf(surface, call)}":`));
    for (const name of named) expect(text).toMatch(new RegExp(`^- ${name}: `, 'm'));
    const record = await recordOf(
      world,
      surface.trail,
      (entry) => entry.target === targetOf(surface, call) && entry.principal === surface.principal('caller'),
    );
    expect(record.outcome).toBe('invalid');
  },
};

const PEM = '-----BEGIN PRIVATE KEY-----';

/**
 * A refusal before anything ran, saying `text`: a JSON-RPC error (`-32602`), `call_tool`'s own error
 * result, the command line's refusal (exit 3), or a route's 403 / 422.
 */
function expectRefused(answer: Answer, text: string): void {
  switch (answer.kind) {
    case 'error':
      expect({ code: answer.code, message: answer.message }).toEqual({
        code: -32602,
        message: expect.stringContaining(text),
      });
      return;
    case 'result':
      expect({ isError: answer.isError, text: answer.text }).toEqual({
        isError: true,
        text: expect.stringContaining(text),
      });
      return;
    case 'exit':
      expect({ code: answer.code, printed: printed(answer) }).toEqual({
        code: 3,
        printed: expect.stringContaining(text),
      });
      return;
    case 'http':
      // A policy's refusal is a 403, a guardrail's a 422: the body says which, and why.
      expect({ refused: [403, 422].includes(answer.status), message: answer.body.message }).toEqual({
        refused: true,
        message: expect.stringContaining(text),
      });
      return;
    default:
      throw new Error(`expected a refusal saying ${text}, got ${JSON.stringify(answer)}`);
  }
}

/** The structured result of a call that succeeded, whichever way it was printed. */
function structuredOf(answer: Answer): Record<string, unknown> {
  if (answer.kind === 'http') {
    expect(answer.status).toBe(200);
    return answer.body;
  }
  expectSucceeded(answer);
  if (answer.kind === 'exit') {
    // `--output json` prints the result's JSON: its structured content, else the value its text holds.
    const printedResult = JSON.parse(answer.stdout) as Partial<CallToolResult> & Record<string, unknown>;
    const text = printedResult.content?.find((item) => item.type === 'text') as { text: string } | undefined;
    return (
      printedResult.structuredContent ?? (text ? (JSON.parse(text.text) as Record<string, unknown>) : printedResult)
    );
  }
  return (
    (answer as { structured?: Record<string, unknown> }).structured ?? JSON.parse((answer as { text: string }).text)
  );
}

/**
 * The desk's governance (src/governance.config.ts), one mechanism for every kind of entry: a policy
 * on the arguments refuses an urgent ticket to a caller who is no lead, naming the policy, and the
 * record names it too; a guardrail refuses a secret in the arguments (never recording it); a
 * customer's e-mail address in a ticket leaves redacted, the finding (never the value) recorded.
 */
const GOVERNANCE: Policy = {
  id: 'governance',
  promise: 'policies decide on the arguments and guardrails on what goes in and out, each decision recorded',
  outcomes: [],
  async run(surface, world) {
    const { open, read } = surface.entries.governed;
    const caller = surface.principal('caller');
    const ticket = { customerId: 'C-1002', subject: 'Printer', description: 'The office printer jams.' };
    await withSession(surface, world, 'agent', async (session) => {
      const urgent = open({ ...ticket, priority: 'urgent' });
      expectRefused(
        await session.call(urgent),
        'Not allowed by policy "urgent-needs-lead": only a team lead may open an urgent ticket',
      );
      const refused = await recordOf(
        world,
        surface.trail,
        (entry) =>
          entry.target === targetOf(surface, urgent) &&
          entry.principal === caller &&
          entry.governance?.refused?.[0]?.policy === 'urgent-needs-lead',
      );
      expect(refused.outcome).toBe('denied');

      const secret = open({ ...ticket, priority: 'low', description: `${PEM} MIIEv…` });
      expectRefused(await session.call(secret), 'Refused by guardrail: the arguments contain private-key');
      // Through call_tool, the relay's own arguments are scanned first: its record is the refusal's.
      const blocked = await recordOf(
        world,
        surface.trail,
        (entry) =>
          [targetOf(surface, secret), secret.name].includes(entry.target!) &&
          entry.principal === caller &&
          entry.governance?.findings?.some((finding) => finding.detector === 'private-key') === true,
      );
      expect(blocked.outcome).toBe('denied');
      expect(JSON.stringify(blocked)).not.toContain(PEM);

      // T-2010's description carries its customer's address (src/support/support.seed.ts).
      const call = read('T-2010');
      const seen = structuredOf(await session.call(call));
      expect(seen.description).toBe(
        'How long do you keep deleted records in backups? Reply to redacted@redacted.invalid.',
      );
      const redacted = await recordOf(
        world,
        surface.trail,
        (entry) => entry.target === targetOf(surface, call) && entry.principal === caller && entry.outcome === 'ok',
      );
      expect(redacted.governance?.findings).toContainEqual(
        expect.objectContaining({ detector: 'email', in: 'result', action: 'redact' }),
      );
      expect(JSON.stringify(redacted)).not.toContain('contoso.example');
    });
  },
};

/**
 * A call its client cancels is answered as the protocol says (no answer after
 * `notifications/cancelled`; a 2026-07-28 request's stream closed; `McpInvoker` rejects; the
 * command line exits 130), stops, and is recorded `cancelled`.
 */
const CANCELLATION: Policy = {
  id: 'cancellation',
  promise: 'a cancelled call is answered as the protocol says, stops, and is recorded cancelled',
  outcomes: ['cancelled'],
  async run(surface, world) {
    const call = surface.entries.slow;
    const target = targetOf(surface, call);
    const caller = surface.principal('caller');
    await withSession(surface, world, 'caller', async (session) => {
      const controller = new AbortController();
      const pending = session.call(call, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 600));
      controller.abort(new Error('the user pressed stop'));
      const answer = await pending;
      if (answer.kind === 'exit') expect(answer.code).toBe(130);
      else expect(answer).toEqual({ kind: 'cancelled' });
      const record = await recordOf(
        world,
        surface.trail,
        (entry) => entry.target === target && entry.principal === caller,
      );
      expect(record.outcome).toBe('cancelled');
      if (surface.reaches === 'upstream') {
        // The call it relayed stops too (the gateway tells the upstream), and is recorded there.
        const onward = await recordOf(
          world,
          surface.onwardTrail!,
          (entry) => entry.principal === 'gateway' && entry.target === DESK_SLOW && entry.outcome === 'cancelled',
          8_000,
        );
        expect(onward.method).toBe('tools/call');
      }
    });
  },
};

/** Every call has its record: who, which client, which surface (and route), and how it ended. */
const AUDIT: Policy = {
  id: 'audit',
  promise:
    'the record names principal, client, transport, route, the composed server, the identity used downstream and outcome',
  outcomes: ['ok'],
  async run(surface, world) {
    const call = surface.entries.read;
    const caller = surface.principal('caller');
    const answer = await withSession(surface, world, 'caller', (session) => session.call(call));
    expectSucceeded(answer);
    const record = await recordOf(
      world,
      surface.trail,
      (entry) => entry.target === targetOf(surface, call) && entry.principal === caller && entry.outcome === 'ok',
    );
    expect(record).toMatchObject({
      method: 'tools/call',
      transport: surface.transport,
      client: surface.client === null ? null : { name: surface.client },
      outcome: 'ok',
    });
    if (surface.reaches === 'rest-route') expect(record.route).toBe('GET /api/customers');
    if (surface.reaches === 'rest-api') expect(record.route).toBe(`${surface.restApi}: GET /api/customers`);
    // A call only a view can make (an app-only tool) is recorded as coming from one.
    expect(record.origin).toBe(surface.reaches === 'view' ? 'view' : undefined);
    // A call through a composed virtual server's path is recorded with the server's name.
    expect(record.server).toBe(surface.server);
    // Who the call went on as: the host's own credential (nothing of the caller's), or the caller,
    // by a token the facade issued for the downstream (subject the caller, actor the facade).
    if (surface.downstream === 'token-exchange') {
      const facade = world.host('facade').base;
      expect(record.downstream).toEqual({
        mode: 'token-exchange',
        target: `api ${surface.restApi}`,
        subject: caller,
        actor: facade,
        identity: caller,
        audience: `${world.host(surface.downstreamHost!).base}/mcp`,
      });
    } else if (surface.downstream === 'user') {
      // Or the caller's own account at the API, which they connected (`<principal>.crm` at the CRM).
      expect(record.downstream).toEqual({
        mode: 'user',
        target: `api ${surface.restApi}`,
        subject: caller,
        actor: FACADE_AT_CRM.id,
        identity: `${caller}.crm`,
      });
    } else expect(record.downstream).toBeUndefined();
    if (surface.reaches === 'upstream') {
      // Where it went on to, the gateway's own credential is the principal: no token passes through.
      const onward = await recordOf(
        world,
        surface.onwardTrail!,
        (entry) => entry.principal === 'gateway' && entry.target === 'search_customers' && entry.outcome === 'ok',
      );
      expect(onward).toMatchObject({ method: 'tools/call', transport: 'http' });
    }
  },
};

/**
 * SIGTERM (or the application's close) while the call runs: it is answered — here, as the call
 * outlasts the drain, "cancelled: the host is shutting down" — and its record is kept.
 */
const SHUTDOWN: Policy = {
  id: 'shutdown',
  promise: 'SIGTERM during the call: the answer is delivered (or says it was cancelled) and the record kept',
  outcomes: ['unavailable'],
  async run(surface, world) {
    const call = surface.entries.slow;
    const target = targetOf(surface, call);
    const caller = surface.principal('caller');
    try {
      await withSession(surface, world, 'caller', async (session) => {
        const pending = session.call(call);
        await new Promise((resolve) => setTimeout(resolve, 600));
        await session.terminate();
        const answer = await pending;
        // What the client called is answered: the relay itself, for a call through call_tool.
        const answered = SHUTDOWN_TEXT(call.name);
        if (answer.kind === 'exit') {
          expect({ code: answer.code, printed: printed(answer) }).toEqual({
            code: 143,
            printed: expect.stringContaining(answered),
          });
        } else expect(answer).toMatchObject({ kind: 'result', isError: true, text: answered });
      });
      const record = await recordOf(
        world,
        surface.trail,
        (entry) => entry.target === target && entry.principal === caller && entry.outcome === 'cancelled',
        SHUTDOWN_TIMEOUT_MS + 10_000,
      );
      // A call through call_tool is cancelled by the relay, its caller, as the host stops.
      expect(record.error).toBe(
        surface.reaches === 'call_tool' ? 'Cancelled by the client: the host is shutting down' : SHUTDOWN_TEXT(target),
      );
    } finally {
      await surface.recover(world);
    }
  },
};

/**
 * Every policy of the promise, in the order the matrix runs them (a stop last: it takes a host
 * down). A surface where something else than a call is done (the admin API) holds a policy with
 * its own cell.
 */
export const POLICIES: readonly Policy[] = [
  CREDENTIAL,
  HIDDEN,
  APPROVAL,
  THROTTLING,
  ARGUMENTS,
  GOVERNANCE,
  CANCELLATION,
  AUDIT,
  SHUTDOWN,
].map((policy) => ({
  ...policy,
  run: (surface: Surface, world: MatrixWorld) => surface.cells?.[policy.id]?.(world) ?? policy.run(surface, world),
}));
