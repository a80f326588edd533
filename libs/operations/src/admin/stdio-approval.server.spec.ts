import { get } from 'node:http';
import { createServer } from 'node:net';
import { ToolRegistry } from '#libs/catalog';
import { ApprovalPageLocator, ApprovalRequests, digestOfArguments, type InvocationOptions } from '#libs/invocation';
import { McpRequestObservers, RequestEvents, type ProtocolOptions } from '#libs/protocol';
import { ClientAddresses, AuthFailureLimiter, Authenticator, hashApiKey } from '#libs/security';
import { AdminAccess } from '../access/admin-access';
import { McpApprovals } from '../approvals/mcp-approvals';
import type { OperationsOptions } from '../options/operations.options';
import { ApprovalsHttpApi } from './approvals-http.api';
import { StdioApprovalServer } from './stdio-approval.server';

const APPROVER_KEY = 'ops-approver-key-0123';

/** The status of a GET of `url` sent with this `Host` header (fetch may not set one). */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).on('error', reject);
  });
}

/** The page of a stdio host whose options say `stdioPage` (`always`: no tool needs to ask). */
function serverWith(stdioPage: OperationsOptions['approvals']['stdioPage']) {
  const operations = {
    admin: { path: '/admin', statsWindowMs: 300_000 },
    approvals: {
      publicUrl: undefined,
      roles: ['approver'],
      scopes: [],
      allowSelfApproval: false,
      webhook: undefined,
      stdioPage,
    },
  } as unknown as OperationsOptions;
  const protocol = { server: { name: 'desk', version: '1' }, tools: { confirmDestructive: true } } as ProtocolOptions;
  const requests = new ApprovalRequests();
  const access = new AdminAccess(
    new Authenticator({
      mode: 'apiKey',
      keys: [{ hash: hashApiKey(APPROVER_KEY), principal: 'ops', roles: ['approver'] }],
    }),
    new RequestEvents(new McpRequestObservers()),
    new AuthFailureLimiter(20, 60_000),
    ClientAddresses.direct,
  );
  const locator = new ApprovalPageLocator({ approvals: { pageOf: undefined } } as unknown as InvocationOptions);
  const server = new StdioApprovalServer(
    operations,
    protocol,
    new ToolRegistry(),
    new ApprovalsHttpApi(access, new McpApprovals(operations, requests)),
    locator,
  );
  return { server, locator, requests };
}

describe('StdioApprovalServer', () => {
  it('opens no port when no tool needs a person, unless told to', async () => {
    const { server, locator } = serverWith({ port: 0, always: false });
    await server.onApplicationBootstrap();
    expect(server.url).toBeUndefined();
    expect(locator.pageOf({})).toBeUndefined();
  });

  it('serves the page and the approvals API on loopback, and nothing else of the admin API', async () => {
    const { server, locator, requests } = serverWith({ port: 0, always: true });
    await server.onApplicationBootstrap();
    try {
      const url = server.url!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin$/);
      expect(locator.pageOf({})).toBe(url);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>');
      expect((await fetch(`${url}/app.js`)).headers.get('etag')).toMatch(/^"/);
      expect(await (await fetch(`${url}/api/health`, { headers: { 'x-api-key': APPROVER_KEY } })).json()).toEqual({
        error: 'forbidden',
        message: 'This stdio host serves approval requests only (there is no admin dashboard without HTTP).',
      });
      expect((await fetch(`${url.replace('/admin', '')}/metrics`)).status).toBe(404);
      // DNS rebinding: a page of another site that resolves its name to 127.0.0.1 is refused.
      expect(await statusWithHost(url, 'evil.example:80')).toBe(403);
      expect(await statusWithHost(url, `localhost:${new URL(url).port}`)).toBe(200);

      const opened = await requests.open(
        { principal: 'operator', tool: 'wipe', digest: digestOfArguments({ archive: 'q1' }) },
        {
          arguments: { archive: 'q1' },
          question: 'Wipe?',
          channel: 'url',
          client: null,
          transport: 'stdio',
          ttlMs: 60_000,
        },
      );
      const decide = (body: string, type = 'application/json') =>
        fetch(`${url}/api/approvals/${opened.id}/approve`, {
          method: 'POST',
          headers: { 'x-api-key': APPROVER_KEY, 'content-type': type },
          body,
        });
      expect(await (await decide('{"reason":')).json()).toEqual({
        error: 'invalid',
        message: 'The body is not valid JSON: send { "reason": "…" } or nothing',
      });
      expect((await decide('reason=x', 'application/x-www-form-urlencoded')).status).toBe(415);
      const approved = await decide('{"reason":"fine"}');
      expect(approved.status).toBe(200);
      expect(await approved.json()).toMatchObject({
        approval: { status: 'approved', decidedBy: 'ops', reason: 'fine' },
      });
    } finally {
      await server.onApplicationShutdown();
      requests.onApplicationShutdown();
    }
    expect(locator.pageOf({})).toBeUndefined();
  });

  it('fails to start with what to do when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(serverWith({ port, always: true }).server.onApplicationBootstrap()).rejects.toThrow(
        `The approval page of this stdio host cannot listen on 127.0.0.1:${port} (EADDRINUSE): ` +
          'choose another approvals.stdioPage.port, or leave it out for any free port',
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
