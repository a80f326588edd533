import { resolveVirtualServersOptions } from './virtual-servers.options';

describe('resolveVirtualServersOptions', () => {
  const problemsOf = (virtualServers: unknown): string[] => {
    const problems: string[] = [];
    resolveVirtualServersOptions({ virtualServers }, (where, problem) => problems.push(`${where}: ${problem}`));
    return problems;
  };

  it('takes host names and addresses as allowHosts, and says which entry is neither', () => {
    expect(
      problemsOf({
        store: { save: () => undefined, load: () => undefined },
        allowHosts: ['wiki.internal', '10.0.3.7', '::ffff:a00:307', 'crm_db'],
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        store: { save: () => undefined, load: () => undefined },
        allowHosts: ['http://wiki.internal', '10.0.0.0/8', 'wiki:8080'],
      }),
    ).toEqual([
      'virtualServers.allowHosts: "http://wiki.internal" is not a host name or an IP address',
      'virtualServers.allowHosts: "10.0.0.0/8" is not a host name or an IP address',
      'virtualServers.allowHosts: "wiki:8080" is not a host name or an IP address',
    ]);
  });
});
