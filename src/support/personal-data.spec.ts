import { McpPolicyTester } from 'nest-mcp-host';
import { CLEARED_FOR_PERSONAL_DATA, clearedForPersonalData, withoutEmails } from './personal-data';

describe('who is cleared for personal data', () => {
  const principals = [
    { scopes: ['customers:pii'], roles: [] },
    { scopes: ['tickets:read'], roles: ['admin'] },
    { scopes: ['tickets:read', 'kb:read'], roles: [] },
    { scopes: ['customers:PII'], roles: ['lead', 'administrator'] },
    { scopes: [], roles: [] },
  ];

  it('is one rule: the guardrail’s CEL condition and the searches’ function agree on every caller', async () => {
    // The condition as a policy: it holds exactly for the callers the guardrail exempts.
    const tester = await McpPolicyTester.create({
      governance: { policies: [{ id: 'cleared', condition: CLEARED_FOR_PERSONAL_DATA }] },
    });
    expect(principals.map((principal) => tester.may(principal, 'search_customers'))).toEqual(
      principals.map((principal) => clearedForPersonalData(principal)),
    );
    expect(principals.map((principal) => clearedForPersonalData(principal))).toEqual([true, true, false, false, false]);
    expect(clearedForPersonalData(undefined)).toBe(false);
  });

  it('reads text as a caller who is not cleared reads it', () => {
    expect(withoutEmails('Reply to bruno@contoso.example or b.r+desk@mail.contoso.co.uk, thanks')).toBe(
      'Reply to redacted@redacted.invalid or redacted@redacted.invalid, thanks',
    );
  });
});
