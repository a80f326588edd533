import { SecretRedactor } from './secret-redactor';

describe('SecretRedactor', () => {
  const redactor = new SecretRedactor([/INTERNAL-\d{6}/]);

  it.each([
    ['Authorization: Bearer eyJhbGciOi.abc.def', 'Authorization: Bearer [REDACTED]'],
    ['password=hunter2 user=bob', 'password=[REDACTED] user=bob'],
    ['{"api_key": "abc123", "name": "x"}', '{"api_key": "[REDACTED]", "name": "x"}'],
    ['postgres://desk:s3cr3t@db:5432/desk', 'postgres://desk:[REDACTED]@db:5432/desk'],
    ['charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'charge with [REDACTED]'],
    ['key AKIAIOSFODNN7EXAMPLE in logs', 'key [REDACTED] in logs'],
    ['ticket INTERNAL-123456 escalated', 'ticket [REDACTED] escalated'],
    ['nothing secret here', 'nothing secret here'],
  ])('redacts %s', (input, expected) => {
    expect(redactor.redact(input)).toBe(expected);
  });

  it('redacts strings inside structured values', () => {
    expect(redactor.redactDeep({ note: 'token: abc', nested: [{ dsn: 'https://u:p@host/x' }], count: 3 })).toEqual({
      note: 'token: [REDACTED]',
      nested: [{ dsn: 'https://u:[REDACTED]@host/x' }],
      count: 3,
    });
  });

  it('copies nothing it does not redact, and never changes what it was given', () => {
    const clean = { content: [{ type: 'text', text: 'ticket T-1 closed' }], count: 1 };
    expect(redactor.redactDeep(clean)).toBe(clean);
    const secret = {
      content: [
        { type: 'text', text: 'ok' },
        { type: 'text', text: 'token: abc' },
      ],
    };
    const redacted = redactor.redactDeep(secret);
    expect(redacted.content[0]).toBe(secret.content[0]);
    expect(redacted.content[1]).toEqual({ type: 'text', text: 'token: [REDACTED]' });
    expect(secret.content[1].text).toBe('token: abc');
  });
});
