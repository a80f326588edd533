import type { McpAuthOptions } from '#libs/security';
import { resolveAuthorizationServerOptions } from '../options/authorization-server.options';
import { InMemoryAuthorizationServerStore } from '../state/in-memory-authorization-server.store';
import { ClientRegistry } from './client-registry';
import { addressGroup } from '../state/address-rate';

const AUTH: McpAuthOptions = { mode: 'oauth', issuer: '', jwksUri: '', resource: 'https://mcp.desk.example/mcp' };
const DAY = 86_400_000;

function registry(dynamicRegistration: unknown = true) {
  const options = resolveAuthorizationServerOptions(
    {
      authorizationServer: {
        idp: { issuer: 'https://login.example', clientId: 'desk', clientSecret: 'secret' },
        dynamicRegistration,
      },
    },
    AUTH,
    (option, problem) => {
      throw new Error(`${option}: ${problem}`);
    },
  )!;
  return new ClientRegistry(options, new InMemoryAuthorizationServerStore());
}

const agent = {
  client_name: 'agent',
  redirect_uris: ['http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
};

describe('ClientRegistry', () => {
  afterEach(() => jest.useRealTimers());

  it('forgets a registration no token was issued to after unusedTtlSec, and keeps one in use idleTtlSec from its last token', async () => {
    jest.useFakeTimers({ now: 1_000_000_000_000 });
    const clients = registry({ unusedTtlSec: 3_600 });
    const unused = String((await clients.register(agent)).client_id);
    const used = String((await clients.register(agent)).client_id);
    await clients.used(await clients.find(used));
    jest.advanceTimersByTime(3_600_000 + 1);
    await expect(clients.find(unused)).rejects.toMatchObject({ error: 'invalid_client', status: 401 });
    await expect(clients.find(used)).resolves.toMatchObject({ clientId: used, kind: 'registered' });
    // Used again 20 days later: kept 30 days from then.
    jest.advanceTimersByTime(20 * DAY);
    await clients.used(await clients.find(used));
    jest.advanceTimersByTime(29 * DAY);
    await expect(clients.find(used)).resolves.toMatchObject({ clientId: used });
    jest.advanceTimersByTime(3 * DAY);
    await expect(clients.find(used)).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('refuses metadata it would not keep, naming the field and what was expected', async () => {
    const clients = registry();
    const refusal = (metadata: Record<string, unknown>) =>
      clients.register({ ...agent, ...metadata }).then(
        () => undefined,
        (error: { error: string; description: string }) => `${error.error}: ${error.description}`,
      );
    expect(await refusal({ redirect_uris: [] })).toBe(
      'invalid_redirect_uri: redirect_uris must list the URIs the client receives its codes at',
    );
    expect(await refusal({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`) })).toBe(
      'invalid_redirect_uri: redirect_uris lists 11 URIs: at most 10 are kept',
    );
    expect(await refusal({ redirect_uris: ['http://app.example/cb'] })).toBe(
      'invalid_redirect_uri: redirect_uris[0] "http://app.example/cb" must use https (http only on localhost, 127.0.0.1 or [::1])',
    );
    expect(await refusal({ client_name: 'x'.repeat(201) })).toBe(
      'invalid_client_metadata: client_name is longer than 200 characters',
    );
    expect(await refusal({ client_name: 'Claude\u202e' })).toBe(
      'invalid_client_metadata: client_name must not contain control or bidirectional formatting characters',
    );
    expect(await refusal({ token_endpoint_auth_method: 'private_key_jwt' })).toBe(
      'invalid_client_metadata: token_endpoint_auth_method "private_key_jwt" is not supported (none, client_secret_basic, client_secret_post)',
    );
  });

  it('counts registrations per address in fixed windows, an IPv6 host by its /64', async () => {
    const clients = registry({ perAddress: { limit: 2, windowSec: 60 } });
    await clients.admit('203.0.113.1');
    await clients.admit('::ffff:203.0.113.1');
    await expect(clients.admit('203.0.113.1')).rejects.toMatchObject({
      error: 'too_many_requests',
      status: 429,
      headers: { 'retry-after': expect.stringMatching(/^\d+$/) },
    });
    await clients.admit('203.0.113.2');
    expect(addressGroup('2001:db8:0:7::1')).toBe('2001:db8:0:7::/64');
    expect(addressGroup('2001:DB8:0:7:ffff:1:2:3')).toBe('2001:db8:0:7::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup(undefined)).toBe('unknown');
  });
});
