import type { IncomingMessage } from 'node:http';
import { Authenticator, ClientAddresses, hashApiKey, resolveTrustProxy, type McpAuthOptions } from '#libs/security';
import { AdminAccess } from './admin-access';
import { AuthFailureLimiter } from '#libs/security';
import { McpRequestObservers } from '#libs/protocol';
import type { McpRequestEvent } from '#libs/protocol';
import { RequestEvents } from '#libs/protocol';

/** What the access check reported as refused (through the same observers metrics use). */
const refusals: McpRequestEvent[] = [];

const request = (remoteAddress: string, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

function access(
  auth: McpAuthOptions,
  authFailureLimit = { limit: 20, windowMs: 60_000 },
  addresses = ClientAddresses.direct,
): AdminAccess {
  const observers = new McpRequestObservers();
  observers.add({ observe: (event) => void refusals.push(event) });
  return new AdminAccess(
    new Authenticator(auth),
    new RequestEvents(observers),
    new AuthFailureLimiter(authFailureLimit.limit, authFailureLimit.windowMs),
    addresses,
  );
}

describe('AdminAccess', () => {
  const keys: McpAuthOptions = {
    mode: 'apiKey',
    keys: [
      { hash: hashApiKey('admin-key'), principal: 'ops', roles: ['admin'] },
      { hash: hashApiKey('scope-key'), principal: 'bot', scopes: ['mcp:admin'] },
      { hash: hashApiKey('agent-key'), principal: 'agent', scopes: ['tickets:read'], roles: ['agent'] },
    ],
  };

  it('admits the role admin or the scope mcp:admin, and no one else', async () => {
    const admin = access(keys);
    expect(await admin.check(request('127.0.0.1', { authorization: 'Bearer admin-key' }))).toMatchObject({
      ok: true,
      principal: { id: 'ops' },
    });
    expect(await admin.check(request('10.1.2.3', { 'x-api-key': 'scope-key' }))).toMatchObject({
      ok: true,
      principal: { id: 'bot' },
    });
    expect(await admin.check(request('127.0.0.1', { authorization: 'Bearer agent-key' }))).toEqual({
      ok: false,
      status: 403,
      error: 'forbidden',
      message: '"agent" is not an administrator: the admin API needs the role "admin" or the scope "mcp:admin".',
      principal: 'agent',
    });
    expect(refusals.slice(-1)).toMatchObject([
      { outcome: 'denied', errorCode: 403, principal: 'agent', target: 'admin API', method: null },
    ]);
    expect(await admin.check(request('127.0.0.1'))).toMatchObject({ ok: false, status: 401, error: 'unauthenticated' });
  });

  it('slows down key guessing: 429 with the wait once an address has failed too often', async () => {
    const admin = access(keys, { limit: 2, windowMs: 60_000 });
    const guess = () => admin.check(request('10.9.9.9', { authorization: 'Bearer guess' }));
    expect(await guess()).toMatchObject({ status: 401 });
    expect(await guess()).toMatchObject({ status: 401 });
    expect(await guess()).toMatchObject({ ok: false, status: 429, error: 'too_many_failures', retryAfterSec: 60 });
    // A valid key from the same address is never locked out by others' failures.
    expect(await admin.check(request('10.9.9.9', { authorization: 'Bearer admin-key' }))).toMatchObject({ ok: true });
    expect(await admin.check(request('10.9.9.8', { authorization: 'Bearer admin-key' }))).toMatchObject({ ok: true });
  });

  it("behind a listed proxy, counts failures per client and judges loopback by the client's address", async () => {
    const proxied = resolveTrustProxy(['127.0.0.1'], (option, problem) => {
      throw new Error(`${option} ${problem}`);
    });
    const admin = access(keys, { limit: 1, windowMs: 60_000 }, proxied);
    const via = (client: string, key: string) =>
      admin.check(request('127.0.0.1', { 'x-forwarded-for': client, authorization: `Bearer ${key}` }));
    expect(await via('198.51.100.1', 'guess')).toMatchObject({ status: 401 });
    expect(await via('198.51.100.1', 'guess')).toMatchObject({ status: 429 });
    // Another client behind the same proxy has its own count.
    expect(await via('198.51.100.2', 'guess')).toMatchObject({ status: 401 });
    const open = access({ mode: 'none', allowPublicBind: true }, undefined, proxied);
    expect(await open.check(request('127.0.0.1', { 'x-forwarded-for': '192.168.1.20' }))).toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it('without authentication, admits loopback callers only', async () => {
    const open = access({ mode: 'none', allowPublicBind: true });
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(await open.check(request(address))).toMatchObject({ ok: true, principal: { id: 'anonymous' } });
    expect(await open.check(request('192.168.1.20'))).toEqual({
      ok: false,
      status: 403,
      error: 'forbidden',
      message: 'Authentication is off on this host, so its admin API answers loopback clients only.',
    });
  });
});
