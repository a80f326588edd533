import type { McpPrincipal } from '#libs/core';
import { OPEN_ACCESS, ResourceRegistry, type RegisteredHandler, type RegisteredResource } from '#libs/catalog';
import { ScopeAndRolePolicy } from '#libs/security';
import { AccessControl } from '../admission/access-control';
import { resolveProtocolOptions } from '../options/protocol.options';
import { SessionStore } from '../sessions/session.store';
import { ChangeNotifications } from './change-notifications';
import { ListenSubscription } from './listen-subscription';
import { ListenSubscriptions } from './listen-subscriptions';
import type { SubscriptionFilter } from './subscription-filter';

const ALICE: McpPrincipal = { id: 'alice', scopes: [], roles: [], claims: {} };
const ADMIN: McpPrincipal = { id: 'root', scopes: [], roles: ['admin'], claims: {} };

function entry(key: string, roles: string[] = []): RegisteredResource {
  return {
    key,
    uri: key,
    where: `Spec.${key}`,
    definition: { uri: key, name: key },
    access: roles.length > 0 ? { scopes: [], roles } : OPEN_ACCESS,
  } as unknown as RegisteredResource;
}

function setup() {
  const options = resolveProtocolOptions({ name: 'spec', version: '1' }, (key, problem) => {
    throw new Error(`${key} ${problem}`);
  });
  const sessions = new SessionStore(options);
  const subscriptions = new ListenSubscriptions(options);
  const resources = new ResourceRegistry();
  resources.resources.add([entry('kb://open'), entry('kb://secret', ['admin'])]);
  const changes = new ChangeNotifications(
    sessions,
    subscriptions,
    resources,
    new AccessControl(new ScopeAndRolePolicy()),
  );

  /** A 2025-era session with its GET stream: the methods it received. */
  function session(opened = true, uris: string[] = []) {
    const got: string[] = [];
    const created = sessions.create('alice');
    created.opened = opened;
    uris.forEach((uri) => created.subscriptions.add(uri));
    created.addSink((message) => got.push(JSON.parse(message).method as string));
    return got;
  }

  /** A listen subscription with `filter` agreed: the methods it received (the acknowledgement is not sent here). */
  function subscription(filter: SubscriptionFilter, principal = ALICE) {
    const got: string[] = [];
    const subscribed = new ListenSubscription(7, principal, {}, filter, (message) => {
      const parsed = JSON.parse(message) as { method: string; params: { uri?: string; _meta: object } };
      got.push(parsed.params.uri ? `${parsed.method} ${parsed.params.uri}` : parsed.method);
      expect(parsed.params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 7 });
      return true;
    });
    subscriptions.add(subscribed, principal.id);
    return got;
  }

  return { changes, sessions, session, subscription, subscriptions };
}

describe('ChangeNotifications', () => {
  it('tells every opened 2025-era session of a list change, and each subscription only of the lists it chose', async () => {
    const { changes, session, subscription, sessions, subscriptions } = setup();
    const opened = session();
    const unopened = session(false);
    const tools = subscription({ toolsListChanged: true });
    const prompts = subscription({ promptsListChanged: true });
    changes.listChanged('tools', [entry('t')]);
    changes.listChanged('resources', [entry('r')]);
    expect(opened).toEqual(['notifications/tools/list_changed', 'notifications/resources/list_changed']);
    expect(unopened).toEqual([]);
    expect(tools).toEqual(['notifications/tools/list_changed']);
    expect(prompts).toEqual([]);
    sessions.closeAll();
    await subscriptions.closeAll('spec over');
  });

  it('tells a subscription of a list change only when its principal may see an entry that changed', async () => {
    const { changes, subscription, subscriptions } = setup();
    const alice = subscription({ toolsListChanged: true });
    const admin = subscription({ toolsListChanged: true }, ADMIN);
    const adminOnly: RegisteredHandler[] = [entry('purge', ['admin'])];
    changes.listChanged('tools', adminOnly);
    expect(alice).toEqual([]);
    expect(admin).toEqual(['notifications/tools/list_changed']);
    changes.listChanged('tools', [...adminOnly, entry('search')]);
    expect(alice).toEqual(['notifications/tools/list_changed']);
    await subscriptions.closeAll('spec over');
  });

  it('tells of a resource update the sessions and subscriptions that asked for that URI and may read it', async () => {
    const { changes, session, subscription, sessions, subscriptions } = setup();
    const subscribed = session(true, ['kb://open']);
    const other = session(true, ['kb://other']);
    const alice = subscription({ resourceSubscriptions: ['kb://open', 'kb://secret'] });
    const admin = subscription({ resourceSubscriptions: ['kb://secret'] }, ADMIN);
    changes.resourceUpdated('kb://open');
    changes.resourceUpdated('kb://secret');
    changes.resourceUpdated('kb://gone');
    expect(subscribed).toEqual(['notifications/resources/updated']);
    expect(other).toEqual([]);
    // kb://secret in alice's filter (as if agreed before her access changed) is not delivered to her now.
    expect(alice).toEqual(['notifications/resources/updated kb://open']);
    expect(admin).toEqual(['notifications/resources/updated kb://secret']);
    sessions.closeAll();
    await subscriptions.closeAll('spec over');
  });

  it('stops telling a subscription once it ended', async () => {
    const { changes, subscription, subscriptions } = setup();
    const got = subscription({ toolsListChanged: true });
    await subscriptions.closeAll('spec over');
    await Promise.resolve();
    changes.listChanged('tools', [entry('t')]);
    expect(got).toEqual(['notifications/cancelled']);
    expect(subscriptions.size).toBe(0);
  });
});
