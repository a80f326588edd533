import { McpTool } from '#libs/core';
import { McpStartupError } from '#libs/core';
import { McpPolicy } from '../policies/mcp-policy.decorator';
import { McpPolicyTester } from './mcp-policy-tester';

class TicketTools {
  @McpPolicy({
    id: 'urgent-needs-lead',
    condition: "args.priority != 'urgent' || 'lead' in principal.roles",
    reason: 'only a team lead may open an urgent ticket',
  })
  @McpTool({ description: 'Opens a ticket' })
  create_ticket() {}

  @McpTool({ description: 'Reads a ticket', annotations: { readOnlyHint: true } })
  get_ticket() {}
}

const tenantMatch = {
  id: 'same-tenant',
  appliesTo: { names: ['get_ticket', 'deskb__*'] },
  condition: 'args.tenant == principal.claims.tenant',
  reason: 'a ticket of another tenant',
};
const upstreamNeedsScope = {
  id: 'upstream-scope',
  appliesTo: { origins: ['upstream' as const] },
  condition: "'upstream:use' in principal.scopes",
};

describe('McpPolicyTester', () => {
  let policies: McpPolicyTester;
  beforeAll(async () => {
    policies = await McpPolicyTester.create({
      governance: {
        policies: [tenantMatch, upstreamNeedsScope],
        guardrails: {
          rules: [
            { detectors: ['private-key', 'api-key'], on: 'arguments', action: 'block' },
            { detectors: ['email'], on: 'arguments', action: 'redact', unless: "'pii' in principal.scopes" },
          ],
        },
      },
      providers: [TicketTools],
    });
  });

  it('applies a policy declared with @McpPolicy on the provider', () => {
    expect(policies.may({ roles: ['agent'] }, 'create_ticket', { priority: 'urgent' })).toBe(false);
    expect(policies.may({ roles: ['lead'] }, 'create_ticket', { priority: 'urgent' })).toBe(true);
    expect(policies.may({ roles: ['agent'] }, 'create_ticket', { priority: 'low' })).toBe(true);
    expect(
      policies.decide({ principal: { roles: ['agent'] }, tool: 'create_ticket', args: { priority: 'urgent' } }),
    ).toEqual({
      allowed: false,
      hidden: false,
      policy: 'urgent-needs-lead',
      reason: 'only a team lead may open an urgent ticket',
      message: 'Not allowed by policy "urgent-needs-lead": only a team lead may open an urgent ticket',
      audit: { refused: [{ policy: 'urgent-needs-lead', reason: 'only a team lead may open an urgent ticket' }] },
    });
  });

  it('records the policies that held', () => {
    const decision = policies.decide({
      principal: { claims: { tenant: 'acme' } },
      tool: 'get_ticket',
      args: { tenant: 'acme' },
    });
    expect(decision).toMatchObject({ allowed: true, audit: { allowed: ['same-tenant'] } });
  });

  // An attack table: arguments crafted to slip past a condition.
  it.each([
    ['the same tenant', { tenant: 'acme' }, true],
    ['another tenant', { tenant: 'globex' }, false],
    ['a Cyrillic look-alike of the tenant', { tenant: 'аcme' }, false],
    ['the tenant in another case', { tenant: 'ACME' }, false],
    ['the tenant with a trailing space', { tenant: 'acme ' }, false],
    ['a list holding the tenant (type confusion)', { tenant: ['acme'] }, false],
    ['a nested object holding the tenant', { tenant: { $eq: 'acme' } }, false],
    ['a number', { tenant: 1 }, false],
    ['no tenant at all (fails closed)', {}, false],
    ['null', { tenant: null }, false],
    ['a prototype key', JSON.parse('{"__proto__": {"tenant": "acme"}}') as Record<string, unknown>, false],
  ])('with %s: allowed %s', (_what, args, allowed) => {
    expect(policies.may({ claims: { tenant: 'acme' } }, 'get_ticket', args)).toBe(allowed);
  });

  it('fails closed when a condition cannot be evaluated, saying why', () => {
    const decision = policies.decide({ principal: { claims: {} }, tool: 'get_ticket', args: { tenant: 'acme' } });
    expect(decision).toMatchObject({ allowed: false, policy: 'same-tenant' });
    expect(decision.reason).toMatch(/could not be evaluated/);
  });

  it('hides an entry whose policy does not read the arguments, from lists and calls alike', () => {
    const upstream = { kind: 'upstream' as const, name: 'deskb' };
    expect(policies.decide({ principal: { scopes: [] }, tool: 'wiki__search', origin: upstream })).toMatchObject({
      allowed: false,
      hidden: true,
      message: 'Unknown tool: wiki__search',
    });
    expect(
      policies.decide({ principal: { scopes: ['upstream:use'] }, tool: 'wiki__search', origin: upstream }).allowed,
    ).toBe(true);
    expect(policies.lists({ scopes: [] }, 'get_ticket')).toBe(true);
  });

  it('blocks a secret in the arguments and redacts an e-mail address for callers without the scope', () => {
    const key = policies.decide({
      principal: { claims: { tenant: 'acme' } },
      tool: 'create_ticket',
      args: { priority: 'low', description: 'my key is AKIAABCDEFGHIJKLMNOP' },
    });
    expect(key).toMatchObject({
      allowed: false,
      message: 'Refused by guardrail: the arguments contain api-key at $.description. Remove it and call again.',
      audit: { findings: [{ detector: 'api-key', in: 'arguments', path: '$.description', action: 'block' }] },
    });
    const mail = policies.decide({
      tool: 'create_ticket',
      args: { priority: 'low', description: 'write to jane@example.com' },
    });
    expect(mail).toMatchObject({
      allowed: true,
      args: { priority: 'low', description: 'write to redacted@redacted.invalid' },
    });
    expect(JSON.stringify(mail.audit)).not.toContain('jane@');
    const scoped = policies.decide({
      principal: { scopes: ['pii'] },
      tool: 'create_ticket',
      args: { priority: 'low', description: 'write to jane@example.com' },
    });
    expect(scoped.args).toEqual({ priority: 'low', description: 'write to jane@example.com' });
  });

  it('reports every problem of the policies at once, each with its place', async () => {
    const failure = await McpPolicyTester.create({
      governance: {
        policies: [
          { id: 'a', condition: 'args.x <' },
          { id: 'a', condition: 'principle.roles.size() > 0' },
          { id: 'b b', condition: 'true', stage: 'later' as never },
        ],
      },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpStartupError);
    expect((failure as McpStartupError).diagnostics.map((d) => `${d.where}: ${d.problem}`)).toEqual([
      expect.stringMatching(/^governance\.policies\[0\]: the condition is not valid CEL/),
      'governance.policies[1]: the condition reads "principle", which no policy is given',
      'governance.policies[2]: "id" must be letters, digits, "_", "-", ".", ":" (1-100)',
      'governance.policies[2]: "stage" must be "call" or "result"',
    ]);
  });

  it('records without refusing in dry-run mode', async () => {
    const dry = await McpPolicyTester.create({ governance: { policies: [tenantMatch], dryRun: true } });
    expect(
      dry.decide({ principal: { claims: { tenant: 'acme' } }, tool: 'get_ticket', args: { tenant: 'globex' } }),
    ).toMatchObject({
      allowed: true,
      audit: { refused: [{ policy: 'same-tenant', reason: 'a ticket of another tenant', dryRun: true }] },
    });
  });
});
