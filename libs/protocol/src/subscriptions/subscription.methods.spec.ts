import {
  JsonRpcError,
  JsonRpcErrorCode,
  STATELESS_PROTOCOL_VERSION,
  ANONYMOUS_PRINCIPAL,
  type McpPrincipal,
} from '#libs/core';
import {
  OPEN_ACCESS,
  ResourceRegistry,
  UriTemplate,
  type RegisteredResource,
  type RegisteredResourceTemplate,
} from '#libs/catalog';
import { Authenticator, ScopeAndRolePolicy, type McpAuthOptions } from '#libs/security';
import { AccessControl } from '../admission/access-control';
import { StatelessCalls } from '../calls/stateless-calls';
import { RequestNote } from '../events/request-note';
import { callRequest } from '../testing/protocol-testing';
import type { ReplyChannel } from '../requests/reply-channel';
import { resolveProtocolOptions } from '../options/protocol.options';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import { ListenSubscriptions } from './listen-subscriptions';
import { SubscriptionMethods } from './subscription.methods';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ALICE: McpPrincipal = { id: 'alice', scopes: [], roles: [], claims: {} };
const ADMIN: McpPrincipal = { id: 'root', scopes: [], roles: ['admin'], claims: {} };

function resource(uri: string, roles: string[] = []): RegisteredResource {
  return {
    key: uri,
    uri,
    where: `Spec.${uri}`,
    definition: { uri, name: uri },
    access: roles.length > 0 ? { scopes: [], roles } : OPEN_ACCESS,
  } as unknown as RegisteredResource;
}

function template(uriTemplate: string): RegisteredResourceTemplate {
  return {
    key: uriTemplate,
    template: UriTemplate.parse(uriTemplate),
    where: `Spec.${uriTemplate}`,
    definition: { uriTemplate, name: uriTemplate },
    access: OPEN_ACCESS,
    complete: {},
  } as unknown as RegisteredResourceTemplate;
}

function setup(limits: Record<string, number> = {}, auth: McpAuthOptions = { mode: 'apiKey', keys: [] }) {
  const options = resolveProtocolOptions({ name: 'spec', version: '1', ...limits }, (key, problem) => {
    throw new Error(`${key} ${problem}`);
  });
  const subscriptions = new ListenSubscriptions(options);
  const resources = new ResourceRegistry();
  resources.resources.add([resource('kb://open'), resource('kb://secret', ['admin'])]);
  resources.templates.add([template('kb://articles/{slug}')]);
  const stateless = new StatelessCalls();
  const methods = new SubscriptionMethods(
    options,
    subscriptions,
    resources,
    new AccessControl(new ScopeAndRolePolicy()),
    stateless,
    new Authenticator(auth),
  );
  let nextId = 1;

  /**
   * Opens a subscription as `principal` would over HTTP, and lets it reach its acknowledgement:
   * what the stream carried, the answer to come, and how to let go.
   */
  async function listen(notifications: unknown, principal = ALICE, how: { sse?: boolean; address?: string } = {}) {
    const sent: Record<string, unknown>[] = [];
    let lose: ((reason: Error) => void) | undefined;
    const session = new McpSession(undefined, STATELESS_PROTOCOL_VERSION);
    session.clientCapabilities = {};
    const reply: ReplyChannel = {
      send: (message) => {
        if (how.sse === false) return false;
        sent.push(JSON.parse(message) as Record<string, unknown>);
        return true;
      },
      answer: () => Promise.resolve(),
      onLost: (abort) => {
        lose = abort;
        return () => (lose = undefined);
      },
    };
    const id = nextId++;
    const origin = {
      session,
      transport: 'http' as const,
      principal,
      headers: {},
      remoteAddress: how.address ?? '127.0.0.1',
    };
    const note = new RequestNote(
      'subscriptions/listen',
      traitsOf('subscriptions/listen'),
      'http',
      principal.id,
      undefined,
      undefined,
      undefined,
    );
    const answer = Promise.resolve(
      methods.methods['subscriptions/listen']!(
        callRequest('subscriptions/listen', { notifications }, origin, id),
        reply,
        note,
      ),
    );
    answer.catch(() => undefined); // a refusal is read by the test, after this
    await new Promise((resolve) => setImmediate(resolve));
    return { id, sent, note, answer, disconnect: () => lose?.(new Error('client disconnected')) };
  }

  return { subscriptions, stateless, listen };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (error: unknown) => error as JsonRpcError,
  );

describe('SubscriptionMethods: subscriptions/listen', () => {
  it('acknowledges first, with the subset it agreed to, tagged with the listen id', async () => {
    const { listen, subscriptions } = setup();
    const { id, sent } = await listen({
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['kb://open', 'kb://articles/intro', 'kb://secret', 'kb://nothing', 'kb://open'],
      somethingElse: [1],
    });
    await Promise.resolve();
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          // A resource alice may not read is left out exactly as one that does not exist.
          notifications: { toolsListChanged: true, resourceSubscriptions: ['kb://open', 'kb://articles/intro'] },
          _meta: { [SUBSCRIPTION_ID]: id },
        },
      },
    ]);
    expect(subscriptions.size).toBe(1);
    await subscriptions.closeAll('spec over');
  });

  it('agrees to a restricted resource for a principal who may read it', async () => {
    const { listen, subscriptions } = setup();
    const { sent } = await listen({ resourceSubscriptions: ['kb://secret'] }, ADMIN);
    expect(sent[0]).toMatchObject({ params: { notifications: { resourceSubscriptions: ['kb://secret'] } } });
    await subscriptions.closeAll('spec over');
  });

  it('stays open until the client disconnects, then goes unanswered', async () => {
    const { listen, subscriptions } = setup();
    const { answer, note, disconnect } = await listen({ toolsListChanged: true });
    let settled = false;
    void answer.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    disconnect();
    await answer;
    expect(note.withdrawn).toBe(true);
    expect(note.outcome).toBe('ok');
    await Promise.resolve();
    expect(subscriptions.size).toBe(0);
  });

  it('keeps no subscription of a client gone while its filter was being acknowledged', async () => {
    const { listen, subscriptions } = setup();
    let settle!: (value: unknown) => void;
    subscriptions.addTopic({ field: 'slow', acknowledge: () => new Promise((resolve) => (settle = resolve)) });
    const { sent, answer, note, disconnect } = await listen({ slow: true });
    disconnect();
    settle(true);
    await answer;
    expect(sent).toEqual([]);
    expect(note.withdrawn).toBe(true);
    expect(subscriptions.size).toBe(0);
  });

  it('ends when the client cancels the listen request (stdio), unanswered', async () => {
    const { listen, stateless } = setup();
    const { id, answer, note } = await listen({ toolsListChanged: true });
    stateless.find('alice', id)!.cancelByClient('done listening');
    await answer;
    expect(note.withdrawn).toBe(true);
  });

  it('ends gracefully when the host ends it: notifications/cancelled for the listen id, then the result', async () => {
    const { listen, subscriptions } = setup();
    const { id, sent, answer, note } = await listen({ toolsListChanged: true });
    await subscriptions.closeAll('host shutting down');
    expect(JSON.parse(await answer)).toEqual({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id } });
    expect(note.withdrawn).toBe(false);
    expect(sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'host shutting down', _meta: { [SUBSCRIPTION_ID]: id } },
    });
  });

  it.each([
    [undefined, '"notifications" must be an object naming what to receive'],
    [{ toolsListChanged: 'yes' }, '"notifications.toolsListChanged" must be true or false'],
    [{ resourceSubscriptions: 'kb://open' }, '"notifications.resourceSubscriptions" must be an array of resource URIs'],
  ])('refuses the filter %j with -32602', async (notifications, message) => {
    const { listen } = setup();
    const error = await failureOf((await listen(notifications)).answer);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.code).toBe(JsonRpcErrorCode.INVALID_PARAMS);
    expect(error.message).toContain(message);
  });

  it('refuses a client that cannot take a stream (no SSE): -32600 with HTTP 406', async () => {
    const { listen, subscriptions } = setup();
    const error = await failureOf((await listen({ toolsListChanged: true }, ALICE, { sse: false })).answer);
    expect({ code: error.code, status: error.httpStatus }).toEqual({ code: -32600, status: 406 });
    expect(subscriptions.size).toBe(0);
  });

  it('bounds subscriptions per principal (per address when anonymous) and URIs per subscription', async () => {
    const { listen, subscriptions } = setup({ maxSessionsPerPrincipal: 1, maxSubscriptionsPerSession: 2 });
    await listen({ toolsListChanged: true });
    expect((await failureOf((await listen({ toolsListChanged: true })).answer)).message).toContain(
      'this caller already holds 1 (maxSessionsPerPrincipal)',
    );
    await listen({ toolsListChanged: true }, ANONYMOUS_PRINCIPAL, { address: '10.0.0.1' });
    await listen({ toolsListChanged: true }, ANONYMOUS_PRINCIPAL, { address: '10.0.0.2' });
    expect(subscriptions.size).toBe(3);
    const tooMany = (await listen({ resourceSubscriptions: ['a:1', 'a:2', 'a:3'] }, ADMIN)).answer;
    expect((await failureOf(tooMany)).message).toContain('at most 2 URIs per subscription');
    await subscriptions.closeAll('spec over');
  });

  it('bounds subscriptions per client address when the host does not authenticate (every caller is one principal)', async () => {
    const operator: McpPrincipal = { id: 'local-operator', scopes: [], roles: [], claims: {} };
    const { listen, subscriptions } = setup(
      { maxSessionsPerPrincipal: 1 },
      { mode: 'none', principal: { id: operator.id } },
    );
    await listen({ toolsListChanged: true }, operator, { address: '127.0.0.1' });
    expect(
      (await failureOf((await listen({ toolsListChanged: true }, operator, { address: '127.0.0.1' })).answer)).message,
    ).toContain('this caller already holds 1 (maxSessionsPerPrincipal)');
    // Another client still gets a stream.
    const other = await listen({ toolsListChanged: true }, operator, { address: '127.0.0.2' });
    expect(other.sent).toHaveLength(1);
    expect(subscriptions.size).toBe(2);
    await subscriptions.closeAll('spec over');
  });

  it('lets an extension serve a filter field of its own, and refuse a subscription', async () => {
    const { listen, subscriptions } = setup();
    subscriptions.addTopic({
      field: 'taskIds',
      acknowledge: (requested, subscriber) => {
        if (subscriber.principal.id !== 'alice')
          throw new JsonRpcError(JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY, 'declare the tasks extension');
        return (requested as string[]).filter((id) => id.startsWith('alice-'));
      },
    });
    const { id, sent } = await listen({ taskIds: ['alice-1', 'bob-1'] });
    expect(sent[0]).toMatchObject({ params: { notifications: { taskIds: ['alice-1'] } } });
    expect(
      subscriptions.publish('notifications/tasks', { taskId: 'alice-1', status: 'completed' }, (s) =>
        (s.filter.taskIds as string[]).includes('alice-1'),
      ),
    ).toBe(1);
    expect(sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { taskId: 'alice-1', status: 'completed', _meta: { [SUBSCRIPTION_ID]: id } },
    });
    expect((await failureOf((await listen({ taskIds: ['x'] }, ADMIN)).answer)).code).toBe(-32021);
    expect(() => subscriptions.addTopic({ field: 'toolsListChanged', acknowledge: () => true })).toThrow(
      'The subscriptions/listen filter field "toolsListChanged" is already served',
    );
    await subscriptions.closeAll('spec over');
  });
});
