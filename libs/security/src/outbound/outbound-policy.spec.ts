import { OutboundPolicies } from './outbound-policies';
import { OutboundPolicy } from './outbound-policy';

/** What each policy says of connecting to `address` (what `host` resolved to) on `port`: `ok` or the refusal's reason and class. */
const verdict = (policy: OutboundPolicy, host: string, address: string, port = 443) => {
  const refusal = policy.refusal(host, [address], port);
  return refusal ? `${refusal.reason}: ${refusal.class}` : 'ok';
};

describe('OutboundPolicies', () => {
  const runTime = (overrides: Partial<Parameters<typeof OutboundPolicies.runTime>[0]> = {}) =>
    OutboundPolicies.runTime({ allowHosts: [], allowPrivateNetworks: false, ownPort: () => 3000, ...overrides });

  it('lets a stranger’s client metadata document reach public addresses only, whatever the spelling', () => {
    const policy = OutboundPolicies.clientMetadata([]);
    expect(verdict(policy, 'clients.example', '93.184.215.14')).toBe('ok');
    for (const address of ['127.0.0.1', '::ffff:7f00:1', '::ffff:127.0.0.1', '10.0.0.7', '169.254.169.254'])
      expect([address, verdict(policy, 'clients.example', address)]).not.toEqual([address, 'ok']);
    expect(verdict(policy, 'x', '::ffff:7f00:1')).toBe('class: loopback');
    expect(verdict(policy, 'x', '64:ff9b::a9fe:a9fe')).toBe('class: metadata');
    expect(verdict(policy, 'x', 'fd12::1')).toBe('class: unique-local');
    expect(verdict(policy, 'x', '100.64.1.1')).toBe('class: cgnat');
  });

  it('widens a policy for the hosts allowed by name, never to a metadata address; an address allowed is reached whatever it is', () => {
    const policy = OutboundPolicies.clientMetadata(['clients.corp.example', '169.254.169.254']);
    expect(verdict(policy, 'clients.corp.example', '10.0.0.7')).toBe('ok');
    expect(verdict(policy, 'Clients.Corp.Example.', '::ffff:10.0.0.7')).toBe('ok');
    expect(verdict(policy, 'other.example', '10.0.0.7')).toBe('class: private');
    expect(verdict(policy, 'clients.corp.example', '169.254.170.2')).toBe('class: metadata');
    expect(verdict(policy, 'anything.example', '169.254.169.254')).toBe('ok');
    expect(verdict(policy, 'anything.example', '::ffff:a9fe:a9fe')).toBe('ok');
  });

  it('lets a run-time upstream reach private networks only when allowed, and never this host on its own port', () => {
    expect(verdict(runTime(), 'wiki.internal', '10.0.3.7')).toBe('class: private');
    expect(verdict(runTime({ allowPrivateNetworks: true }), 'wiki.internal', '10.0.3.7')).toBe('ok');
    expect(verdict(runTime({ allowPrivateNetworks: true }), 'x', '169.254.169.254')).toBe('class: metadata');
    expect(verdict(runTime({ allowPrivateNetworks: true }), 'x', 'fd00:ec2::254')).toBe('class: metadata');
    expect(verdict(runTime({ allowHosts: ['127.0.0.1'] }), '127.0.0.1', '127.0.0.1', 3001)).toBe('ok');
    // The same address in another spelling is the same address.
    expect(verdict(runTime({ allowHosts: ['127.0.0.1'] }), 'x', '::ffff:7f00:1', 3001)).toBe('ok');
    for (const address of ['127.0.0.1', '::ffff:7f00:1', '::1', '0.0.0.0', '::'])
      expect([
        address,
        verdict(runTime({ allowHosts: ['127.0.0.1'], allowPrivateNetworks: true }), 'x', address, 3000),
      ]).toEqual([address, expect.stringMatching(/^own-port: /)]);
    expect(verdict(runTime({ allowPrivateNetworks: true }), 'x', '127.0.0.1', 3000)).toBe('own-port: loopback');
  });

  it('lets the operator’s configuration reach its own networks, and a metadata address only when a URL names it', () => {
    const policy = OutboundPolicies.configured([
      'http://127.0.0.1:8080/mcp',
      'http://169.254.169.254/latest',
      undefined,
    ]);
    expect(verdict(policy, 'localhost', '127.0.0.1')).toBe('ok');
    expect(verdict(policy, 'idp.corp', '10.1.2.3')).toBe('ok');
    expect(verdict(policy, '169.254.169.254', '169.254.169.254', 80)).toBe('ok');
    expect(verdict(OutboundPolicies.configured(['https://idp.corp/']), 'idp.corp', '169.254.169.254')).toBe(
      'class: metadata',
    );
    expect(verdict(OutboundPolicies.discovered(), 'idp.corp', '::ffff:169.254.169.254')).toBe('class: metadata');
  });

  it('says which host, address and class it refused, and how to allow it', () => {
    expect(runTime().refusal('wiki.internal', ['93.184.215.14', '10.0.3.7'], 443)).toEqual({
      reach: 'a run-time upstream or API',
      host: 'wiki.internal',
      port: 443,
      address: '10.0.3.7',
      class: 'private',
      reason: 'class',
      problem:
        '"wiki.internal" resolves to 10.0.3.7, a private (RFC 1918) address, which a run-time upstream or API may not reach',
      fix: "allow it with virtualServers.allowHosts: ['wiki.internal'] if it is meant",
    });
    expect(runTime().refusal('[::ffff:a9fe:a9fe]', ['::ffff:a9fe:a9fe'], 80)).toMatchObject({
      problem: '::ffff:a9fe:a9fe is a cloud metadata address, which a run-time upstream or API may not reach',
      fix: "a cloud metadata address is reached only when named by address: virtualServers.allowHosts: ['::ffff:a9fe:a9fe']",
    });
  });

  it('resolves a name with the resolver it is given, and an address literal as itself', async () => {
    const policy = new OutboundPolicy({ reach: 'x', resolve: async () => [{ address: '10.0.0.1', family: 4 }] });
    expect(await policy.resolve('db.internal')).toEqual([{ address: '10.0.0.1', family: 4 }]);
    expect(await policy.resolve('[::FFFF:127.0.0.1]')).toEqual([{ address: '::ffff:7f00:1', family: 6 }]);
    await expect(policy.admit(new URL('http://db.internal/'))).rejects.toThrow(
      '"db.internal" resolves to 10.0.0.1, a private (RFC 1918) address, which x may not reach',
    );
  });
});
