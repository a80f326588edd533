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
});
