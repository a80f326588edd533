import { OutboundPolicies } from '#libs/security';
import { upstreamTargetProblems } from './upstream-target.policy';

const policy = (overrides: { allowHosts?: string[]; allowPrivateNetworks?: boolean } = {}) =>
  OutboundPolicies.runTime({ allowHosts: [], allowPrivateNetworks: false, ownPort: () => 3000, ...overrides });

describe('upstreamTargetProblems', () => {
  it('refuses loopback, private, link-local, unique-local and metadata addresses, in every spelling, unless allowed', async () => {
    for (const [url, kind] of [
      ['http://127.0.0.1:8080/mcp', 'loopback'],
      ['http://[::ffff:127.0.0.1]:8080/mcp', 'loopback'],
      ['http://[::ffff:7f00:1]:8080/mcp', 'loopback'],
      ['http://2130706433:8080/mcp', 'loopback'],
      ['http://10.0.3.7/mcp', 'private'],
      ['http://172.20.0.1/mcp', 'private'],
      ['http://192.168.1.1/mcp', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'cloud metadata'],
      ['http://[::ffff:a9fe:a9fe]/latest/meta-data', 'cloud metadata'],
      ['http://[::1]:8080/mcp', 'loopback'],
      ['http://[fd00::7]/mcp', 'unique-local'],
      ['http://localhost:8080/mcp', 'loopback'],
    ])
      expect([url, await upstreamTargetProblems(url, policy())]).toEqual([
        url,
        [{ problem: expect.stringContaining(`a ${kind}`), fix: expect.any(String) }],
      ]);
    expect(await upstreamTargetProblems('http://10.0.3.7/mcp', policy())).toEqual([
      {
        problem: '10.0.3.7 is a private (RFC 1918) address, which a run-time upstream or API may not reach',
        fix: "allow it with virtualServers.allowHosts: ['10.0.3.7'] if it is meant",
      },
    ]);
    expect(await upstreamTargetProblems('http://10.0.3.7/mcp', policy({ allowHosts: ['10.0.3.7'] }))).toEqual([]);
    expect(await upstreamTargetProblems('http://192.168.1.1/mcp', policy({ allowPrivateNetworks: true }))).toEqual([]);
    expect(await upstreamTargetProblems('http://169.254.169.254/', policy({ allowPrivateNetworks: true }))).toEqual([
      expect.objectContaining({
        fix: "a cloud metadata address is reached only when named by address: virtualServers.allowHosts: ['169.254.169.254']",
      }),
    ]);
    expect(await upstreamTargetProblems('https://93.184.215.14/mcp', policy())).toEqual([]);
  });

  it('refuses the host itself on its own port, whatever is allowed (its admin API, metrics, its own endpoint)', async () => {
    for (const url of [
      'http://127.0.0.1:3000/admin/api/servers/upstreams',
      'http://[::ffff:127.0.0.1]:3000/admin/api/servers/upstreams',
      'http://localhost:3000/mcp',
      'http://0.0.0.0:3000/metrics',
    ])
      expect(
        await upstreamTargetProblems(url, policy({ allowPrivateNetworks: true, allowHosts: ['127.0.0.1'] })),
      ).toEqual([expect.objectContaining({ problem: expect.stringMatching(/is this host itself/) })]);
    expect(await upstreamTargetProblems('http://127.0.0.1:3001/mcp', policy({ allowHosts: ['127.0.0.1'] }))).toEqual(
      [],
    );
  });

  it('refuses what is no http(s) URL, and credentials in the URL', async () => {
    expect(await upstreamTargetProblems('file:///etc/passwd', policy())).toEqual([
      { problem: 'use an http(s) URL (got file:)' },
    ]);
    expect(await upstreamTargetProblems('not a url', policy())).toEqual([{ problem: '"not a url" is not a URL' }]);
    expect(await upstreamTargetProblems('https://u:p@93.184.215.14/mcp', policy())).toEqual([
      { problem: 'put credentials in transport.bearer or transport.headers, not in the URL' },
    ]);
  });
});
