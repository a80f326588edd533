import { hostname } from 'node:os';
import { resolveOperationsOptions } from './operations.options';
import { defaultReplicaName, MAX_REPLICA_NAME_LENGTH, resolveReplicaName } from './replica-name';

function resolve(replica: unknown) {
  const problems: string[] = [];
  const name = resolveReplicaName(replica, (option, problem, fix) => {
    expect(fix.trim()).not.toBe('');
    problems.push(`${option}: ${problem}`);
  });
  return { name, problems };
}

describe('resolveReplicaName', () => {
  it('takes a name of letters, digits, ".", "_", ":" and "-", up to 64 characters', () => {
    expect(resolve('desk-7f9c4-x2x9z')).toEqual({ name: 'desk-7f9c4-x2x9z', problems: [] });
    expect(resolve('eu-west-1.desk_a:3')).toEqual({ name: 'eu-west-1.desk_a:3', problems: [] });
    expect(resolve('r'.repeat(MAX_REPLICA_NAME_LENGTH))).toEqual({ name: 'r'.repeat(64), problems: [] });
  });

  it('is <host name>-<pid> when left out', () => {
    expect(resolve(undefined)).toEqual({ name: defaultReplicaName(hostname(), process.pid), problems: [] });
  });

  it('reports each bad name with a fix', () => {
    expect(resolve('').problems).toEqual(['replica: must be a non-empty string, got ""']);
    expect(resolve(42).problems).toEqual(['replica: must be a non-empty string, got 42']);
    expect(resolve(null).problems).toEqual(['replica: must be a non-empty string, got null']);
    expect(resolve('r'.repeat(65)).problems).toEqual(['replica: is 65 characters long, more than 64']);
    expect(resolve('desk eu/1').problems).toEqual([
      `replica: "desk eu/1" has characters other than letters, digits, '.', '_', ':' and '-'`,
    ]);
    expect(resolve('desk"} 1\nx').problems).toHaveLength(1);
  });

  it('says how to fix a bad name', () => {
    const fixes: string[] = [];
    resolveReplicaName('a b', (_option, _problem, fix) => fixes.push(fix));
    expect(fixes).toEqual([
      "use letters, digits, '.', '_', ':' and '-' only, e.g. replica: process.env.POD_NAME or 'desk-eu-1', or leave it out for <host name>-<pid>",
    ]);
  });
});

describe('defaultReplicaName', () => {
  it('keeps a host name as it is, with the pid after it', () => {
    expect(defaultReplicaName('support-desk-7f9c4-x2x9z', 1)).toBe('support-desk-7f9c4-x2x9z-1');
    expect(defaultReplicaName('node-3.eu.internal', 4242)).toBe('node-3.eu.internal-4242');
  });

  it('always passes the checks: other characters become "-", a long host name is cut before the pid', () => {
    expect(defaultReplicaName("Ada's MacBook Pro", 77)).toBe('Ada-s-MacBook-Pro-77');
    const long = defaultReplicaName(`${'h'.repeat(80)}.example.com`, 123_456);
    expect(long).toBe(`${'h'.repeat(57)}-123456`);
    expect(long).toHaveLength(MAX_REPLICA_NAME_LENGTH);
    expect(defaultReplicaName('', 9)).toBe('host-9');
    for (const name of [long, defaultReplicaName("Ada's MacBook Pro", 77), defaultReplicaName('', 9)])
      expect(resolve(name).problems).toEqual([]);
  });
});

describe('resolveOperationsOptions: replica', () => {
  const context = { http: true, stdio: false, mcpPath: '/mcp', authMode: 'none' };
  const problemsOf = (options: Record<string, unknown>) => {
    const problems: string[] = [];
    const resolved = resolveOperationsOptions(options, context, (option, problem) =>
      problems.push(`${option}: ${problem}`),
    );
    return { replica: resolved.replica, problems };
  };

  it('resolves the replica with the other operations options', () => {
    expect(problemsOf({ replica: 'desk-eu-1' })).toEqual({ replica: 'desk-eu-1', problems: [] });
    expect(problemsOf({}).replica).toBe(defaultReplicaName(hostname(), process.pid));
    expect(problemsOf({ replica: 'a b', admin: 'yes' }).problems).toEqual([
      `replica: "a b" has characters other than letters, digits, '.', '_', ':' and '-'`,
      'admin: must be false or an object, got "yes"',
    ]);
  });
});
