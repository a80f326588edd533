import { DeskDatabaseError, maskPassword } from './desk-database.error';

describe('DeskDatabaseError', () => {
  it('names DATABASE_URL and the cause, with the password masked', () => {
    const error = new DeskDatabaseError(
      'postgres://desk:s3cr%40t@db:5432/desk',
      new Error('connect ECONNREFUSED 10.0.0.5:5432'),
    );
    expect(error.message).toBe(
      'The support desk cannot keep its customers and tickets in PostgreSQL ' +
        '(DATABASE_URL=postgres://desk:***@db:5432/desk): connect ECONNREFUSED 10.0.0.5:5432. ' +
        'Check that the server is up and reachable and that the user may create tables, ' +
        'or unset DATABASE_URL to keep the desk in memory.',
    );
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).not.toContain('s3cr');
  });

  it.each([
    ['postgres://desk@db/desk', 'postgres://desk@db/desk'],
    [
      'postgresql://desk:pw@db/desk?password=pw2&sslmode=require',
      'postgresql://desk:***@db/desk?password=***&sslmode=require',
    ],
    ['postgres:///desk?host=/var/run/postgresql', 'postgres:///desk?host=/var/run/postgresql'],
    ['postgres://desk:p w@[bad/desk?password=x', 'postgres://***@[bad/desk?password=***'],
  ])('masks the password of %s', (url, masked) => {
    expect(maskPassword(url)).toBe(masked);
  });
});
