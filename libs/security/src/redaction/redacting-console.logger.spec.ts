import { RedactingConsoleLogger } from './redacting-console.logger';

describe('RedactingConsoleLogger', () => {
  it('prints messages and stack traces without secrets', () => {
    const written: string[] = [];
    const stdout = jest
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk) => (written.push(String(chunk)), true));
    const stderr = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      const logger = new RedactingConsoleLogger({ colors: false, secretPatterns: ['TENANT-KEY-\\d+'] });
      logger.log('connecting to postgres://desk:hunter2@db/desk with TENANT-KEY-991', 'Db');
      logger.error(
        'upstream refused Authorization: Bearer abc.def.ghi',
        'Error: boom\n    at api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc',
        'Client',
      );
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    const output = written.join('');
    expect(output).toContain('postgres://desk:[REDACTED]@db/desk with [REDACTED]');
    expect(output).toContain('Authorization: Bearer [REDACTED]');
    expect(output).not.toMatch(/hunter2|abc\.def\.ghi|sk_live|TENANT-KEY-991/);
  });
});
