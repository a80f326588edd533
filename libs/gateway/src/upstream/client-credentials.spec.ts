import { createServer, type Server } from 'node:http';
import { ClientCredentials } from './client-credentials';

describe('ClientCredentials', () => {
  let server: Server;
  let tokenUrl: string;
  let issued = 0;
  let answer: (status: number) => unknown = () => ({ access_token: `token-${issued}`, expires_in: 120 });

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        issued++;
        const body = answer(200);
        const status = (body as { error?: string }).error ? 400 : 200;
        // Answer a little later, so that concurrent callers overlap.
        setTimeout(
          () => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
          20,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/token`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    issued = 0;
    answer = () => ({ access_token: `token-${issued}`, expires_in: 120 });
  });

  // A deadline no busy machine reaches: these tests are about the cache, not the timeout.
  const credentials = (now: () => number) =>
    new ClientCredentials({ tokenUrl, clientId: 'gw', clientSecret: 's' }, 30_000, now);

  it('asks once for concurrent callers, and keeps the token until 30 s before it expires', async () => {
    let now = 0;
    const tokens = credentials(() => now);
    expect(await Promise.all([tokens.token(), tokens.token(), tokens.token()])).toEqual([
      'token-1',
      'token-1',
      'token-1',
    ]);
    now = 89_000;
    expect(await tokens.token()).toBe('token-1');
    now = 90_000;
    expect(await tokens.token()).toBe('token-2');
    expect(issued).toBe(2);
  });

  it('asks again after the token was refused', async () => {
    const tokens = credentials(() => 0);
    await tokens.token();
    tokens.invalidate();
    expect(await tokens.token()).toBe('token-2');
  });

  it('says what the token endpoint answered when it refuses', async () => {
    answer = () => ({ error: 'invalid_scope', error_description: 'mcp is not granted' });
    await expect(credentials(() => 0).token()).rejects.toThrow(
      'the token endpoint refused the client credentials (400 invalid_scope: mcp is not granted)',
    );
  });

  it('reads at most 64 KiB of the token endpoint’s answer', async () => {
    answer = () => ({ access_token: 'x'.repeat(100_000) });
    await expect(credentials(() => 0).token()).rejects.toThrow(
      `the upstream's token endpoint at ${new URL(tokenUrl).host} answered more than 65536 bytes`,
    );
  });
});
