import { GrantPolicy } from './grant-policy';

const PRIVILEGED = { scopes: new Set(['mcp:admin', 'mcp:approve']), roles: new Set(['admin', 'approver']) };
const policy = (claims: ConstructorParameters<typeof GrantPolicy>[1], scopesSupported?: string[]) =>
  new GrantPolicy({ privileged: PRIVILEGED, scopesSupported }, claims, undefined);

describe('GrantPolicy', () => {
  const mapped = policy({
    scopes: { from: ['groups'], map: { agents: ['tickets:read', 'tickets:write'], admins: ['mcp:admin'] } },
    roles: { from: ['groups'], map: { admins: ['admin'] } },
  });

  it('grants what the claims map to, narrowed by every party that asked, never more', () => {
    const person = { sub: 'alice', groups: ['agents'] };
    expect(mapped.decide(person)).toEqual({
      scopes: ['tickets:read', 'tickets:write'],
      roles: [],
      asked: null,
      withheld: [],
    });
    expect(mapped.decide(person, ['tickets:read', 'mcp:admin'], null)).toEqual({
      scopes: ['tickets:read'],
      roles: [],
      asked: ['tickets:read', 'mcp:admin'],
      withheld: ['mcp:admin'],
    });
    expect(mapped.decide(person, ['tickets:read', 'tickets:write'], ['tickets:write']).scopes).toEqual([
      'tickets:write',
    ]);
  });

  it('grants privileged scopes and roles through a map that names them', () => {
    expect(mapped.decide({ sub: 'carol', groups: ['admins'] })).toMatchObject({
      scopes: ['mcp:admin'],
      roles: ['admin'],
    });
  });

  it('never passes a privileged value through a rule without a map, and says so', () => {
    const passThrough = policy({ scopes: { from: ['scope'] }, roles: { from: ['roles'] } });
    expect(passThrough.decide({ sub: 'mallory', scope: 'tickets:read mcp:admin', roles: ['admin', 'agent'] })).toEqual({
      scopes: ['tickets:read'],
      roles: ['agent'],
      asked: null,
      withheld: ['mcp:admin', 'role:admin'],
    });
  });

  it('grants nothing outside scopesSupported', () => {
    const supported = policy({ scopes: { from: ['scope'] } }, ['tickets:read']);
    expect(supported.decide({ sub: 'alice', scope: 'tickets:read reports' })).toMatchObject({
      scopes: ['tickets:read'],
      withheld: ['reports'],
    });
  });
});
