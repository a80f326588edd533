import { upstreamTargetProblems, type UpstreamTargetPolicy } from './upstream-target.policy';

const policy = (overrides: Partial<UpstreamTargetPolicy> = {}): UpstreamTargetPolicy => ({
  allowHosts: [],
  allowPrivateNetworks: false,
  ownPort: () => 3000,
  ...overrides,
});

describe('upstreamTargetProblems', () => {
  it('refuses loopback, private, link-local and unique-local addresses unless allowed', async () => {
    for (const url of [
      'http://127.0.0.1:8080/mcp',
      'http://10.0.3.7/mcp',
      'http://172.20.0.1/mcp',
      'http://192.168.1.1/mcp',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/mcp',
      'http://[fd00::7]/mcp',
      'http://localhost:8080/mcp',
    ])
      expect([url, await upstreamTargetProblems(url, policy())]).toEqual([
        url,
        [expect.stringMatching(/a private, loopback or link-local address; allow it with virtualServers.allowHosts/)],
      ]);
    expect(await upstreamTargetProblems('http://10.0.3.7/mcp', policy({ allowHosts: ['10.0.3.7'] }))).toEqual([]);
    expect(await upstreamTargetProblems('http://192.168.1.1/mcp', policy({ allowPrivateNetworks: true }))).toEqual([]);
    expect(await upstreamTargetProblems('https://203.0.113.9/mcp', policy())).toEqual([]);
  });

  it('refuses the host itself on its own port, whatever is allowed (its admin API, metrics, its own endpoint)', async () => {
    for (const url of [
      'http://127.0.0.1:3000/admin/api/servers/upstreams',
      'http://localhost:3000/mcp',
      'http://0.0.0.0:3000/metrics',
    ])
      expect(await upstreamTargetProblems(url, policy({ allowPrivateNetworks: true }))).toEqual([
        expect.stringMatching(/is this host itself/),
      ]);
    expect(await upstreamTargetProblems('http://127.0.0.1:3001/mcp', policy({ allowHosts: ['127.0.0.1'] }))).toEqual(
      [],
    );
  });

  it('refuses what is no http(s) URL, and credentials in the URL', async () => {
    expect(await upstreamTargetProblems('file:///etc/passwd', policy())).toEqual(['use an http(s) URL (got file:)']);
    expect(await upstreamTargetProblems('not a url', policy())).toEqual(['"not a url" is not a URL']);
    expect(await upstreamTargetProblems('https://u:p@203.0.113.9/mcp', policy())).toEqual([
      'put credentials in transport.bearer or transport.headers, not in the URL',
    ]);
  });
});
