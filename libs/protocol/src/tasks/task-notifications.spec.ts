import { JsonRpcError, type McpPrincipal } from '#libs/core';
import type { McpRequest } from '../requests/mcp-request';
import { resolveProtocolOptions } from '../options/protocol.options';
import { ListenSubscription } from '../subscriptions/listen-subscription';
import { ListenSubscriptions } from '../subscriptions/listen-subscriptions';
import type { TaskExtensionRunner } from './task-extension.runner';
import { TaskNotifications } from './task-notifications';
import { TaskStatusEvents } from './task-status.events';

const ALICE: McpPrincipal = { id: 'alice', scopes: [], roles: [], claims: {} };
const BOB: McpPrincipal = { id: 'bob', scopes: [], roles: [], claims: {} };

function setup() {
  const options = resolveProtocolOptions({ name: 'spec', version: '1' }, (key, problem) => {
    throw new Error(`${key} ${problem}`);
  });
  const subscriptions = new ListenSubscriptions(options);
  const statusEvents = new TaskStatusEvents();
  const asked: { ids: readonly string[]; request: McpRequest }[] = [];
  // The runner's rule, as it applies it: the caller's own tasks ("<principal>-…").
  const runner = {
    followable: (ids: readonly string[], request: McpRequest) => {
      asked.push({ ids, request });
      return Promise.resolve(ids.filter((id) => id.startsWith(`${request.principal.id}-`)));
    },
  } as unknown as TaskExtensionRunner;
  const notifications = new TaskNotifications(subscriptions, runner, statusEvents);
  notifications.onModuleInit();

  /** A subscription as `principal`, its `taskIds` acknowledged by the topic: what it received. */
  async function follow(principal: McpPrincipal, taskIds: unknown) {
    const request = { principal } as McpRequest;
    const topic = subscriptions.topics.get('taskIds')!;
    const agreed = await topic.acknowledge(taskIds, { id: 1, principal, clientCapabilities: {}, request });
    const got: Record<string, unknown>[] = [];
    const subscription = new ListenSubscription(1, principal, {}, { taskIds: agreed }, (message) => {
      got.push(JSON.parse(message).params as Record<string, unknown>);
      return true;
    });
    subscriptions.add(subscription, principal.id);
    return { agreed, got };
  }

  return { notifications, statusEvents, subscriptions, follow, asked };
}

const change = (taskId: string, principal: string, status = 'completed') => ({
  task: { taskId, status },
  owner: { principal, session: undefined },
});

describe('TaskNotifications', () => {
  it('acknowledges the task ids the runner says the caller may follow, with the listen request', async () => {
    const { follow, asked, subscriptions } = setup();
    expect((await follow(ALICE, ['alice-1', 'bob-1'])).agreed).toEqual(['alice-1']);
    expect(asked[0]).toMatchObject({ ids: ['alice-1', 'bob-1'], request: { principal: ALICE } });
    await subscriptions.closeAll('spec over');
  });

  it('refuses task ids that are not a list of strings', async () => {
    const { follow } = setup();
    await expect(follow(ALICE, 'alice-1')).rejects.toBeInstanceOf(JsonRpcError);
    await expect(follow(ALICE, [1])).rejects.toMatchObject({ code: -32602 });
  });

  it("sends a status change to the owner's subscriptions that follow that task, and to no one else", async () => {
    const { follow, statusEvents, subscriptions, notifications } = setup();
    const alice = await follow(ALICE, ['alice-1']);
    const other = await follow(ALICE, ['alice-2']);
    const bob = await follow(BOB, ['bob-1']);
    statusEvents.publish(change('alice-1', 'alice'));
    // A task id that names another principal's task (were it agreed) still reaches only its owner.
    statusEvents.publish(change('bob-1', 'alice'));
    expect(alice.got).toEqual([
      { taskId: 'alice-1', status: 'completed', _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
    ]);
    expect(other.got).toEqual([]);
    expect(bob.got).toEqual([]);
    notifications.onApplicationShutdown();
    statusEvents.publish(change('alice-1', 'alice', 'failed'));
    expect(alice.got).toHaveLength(1);
    expect(subscriptions.topics.has('taskIds')).toBe(false);
    await subscriptions.closeAll('spec over');
  });
});
