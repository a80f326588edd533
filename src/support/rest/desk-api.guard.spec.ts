import {
  ForbiddenException,
  HttpException,
  UnauthorizedException,
  type ExecutionContext,
  type Type,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef, Reflector } from '@nestjs/core';
import {
  AuthFailureLimiter,
  Authenticator,
  ClientAddresses,
  hashApiKey,
  MCP_ACCESS_POLICY,
  ScopeAndRolePolicy,
  type McpAuthOptions,
  type McpPrincipal,
} from 'nest-mcp-host';
import { DeskApiGuard, type DeskApiRequest } from './desk-api.guard';
import { CustomersController } from './customers.controller';
import { TicketsController } from './tickets.controller';

const KEYS = { reader: 'reader-key-0123456789', writer: 'writer-key-0123456789' };
const API_KEYS: McpAuthOptions = {
  mode: 'apiKey',
  keys: [
    { hash: hashApiKey(KEYS.reader), principal: 'reader', scopes: ['tickets:read'] },
    { hash: hashApiKey(KEYS.writer), principal: 'writer', scopes: ['tickets:read', 'tickets:write'] },
  ],
};

describe('DeskApiGuard', () => {
  let headers: Record<string, string>;

  /** The guard with the host's services as the McpModule provides them. */
  function guardFor(auth: McpAuthOptions, failures = new AuthFailureLimiter(20, 60_000)) {
    const services = new Map<unknown, unknown>([
      [Authenticator, new Authenticator(auth)],
      [AuthFailureLimiter, failures],
      [ClientAddresses, ClientAddresses.direct],
      [MCP_ACCESS_POLICY, new ScopeAndRolePolicy()],
    ]);
    const moduleRef = { get: (token: unknown) => services.get(token) } as unknown as ModuleRef;
    const adapter = {
      httpAdapter: { setHeader: (_res: unknown, name: string, value: string) => (headers[name] = value) },
    } as unknown as HttpAdapterHost;
    return new DeskApiGuard(new Reflector(), moduleRef, adapter);
  }

  function routeContext(
    controller: Type,
    handler: (...args: never[]) => unknown,
    request: DeskApiRequest,
    type = 'http',
  ): ExecutionContext {
    return {
      getType: () => type,
      getHandler: () => handler,
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
    } as unknown as ExecutionContext;
  }
  const request = (requestHeaders: Record<string, string> = {}, user?: unknown): DeskApiRequest => ({
    headers: requestHeaders,
    socket: { remoteAddress: '10.0.0.7' },
    user,
  });
  const create = TicketsController.prototype.create;
  const getTicket = TicketsController.prototype.get;

  beforeEach(() => (headers = {}));

  it('authenticates the X-API-Key or bearer key and puts the principal on request.user', async () => {
    const byHeader = request({ 'x-api-key': KEYS.writer });
    await expect(guardFor(API_KEYS).canActivate(routeContext(TicketsController, create, byHeader))).resolves.toBe(true);
    expect(byHeader.user).toEqual({ id: 'writer', scopes: ['tickets:read', 'tickets:write'], roles: [], claims: {} });
    const byBearer = request({ authorization: `Bearer ${KEYS.reader}` });
    await expect(guardFor(API_KEYS).canActivate(routeContext(TicketsController, getTicket, byBearer))).resolves.toBe(
      true,
    );
    expect((byBearer.user as McpPrincipal).id).toBe('reader');
  });

  it('refuses with 401 and WWW-Authenticate without a key or with a bad one', async () => {
    const guard = guardFor(API_KEYS);
    await expect(guard.canActivate(routeContext(TicketsController, getTicket, request()))).rejects.toThrow(
      new UnauthorizedException('No API key: send Authorization: Bearer <key> or X-API-Key: <key>'),
    );
    expect(headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="desk-api"' });
    await expect(
      guard.canActivate(routeContext(TicketsController, getTicket, request({ 'x-api-key': 'guess' }))),
    ).rejects.toThrow(new UnauthorizedException('The API key is not valid'));
    expect(headers['WWW-Authenticate']).toBe('Bearer realm="desk-api", error="invalid_token"');
  });

  it('refuses with 403 a key that lacks a scope of the route (the method adds to the class)', async () => {
    const guard = guardFor(API_KEYS);
    const reader = request({ 'x-api-key': KEYS.reader });
    await expect(guard.canActivate(routeContext(TicketsController, create, reader))).rejects.toThrow(
      new ForbiddenException('reader may not use this route: it needs the scope(s) tickets:write'),
    );
    const nobody = request({}, { id: 'bot', scopes: [], roles: [], claims: {} });
    await expect(
      guard.canActivate(routeContext(CustomersController, CustomersController.prototype.get, nobody)),
    ).rejects.toThrow(new ForbiddenException('bot may not use this route: it needs the scope(s) tickets:read'));
  });

  it('takes the principal the REST bridge put on request.user, without asking for a key', async () => {
    const bridged = request({}, { id: 'mcp-caller', scopes: ['tickets:read', 'tickets:write'], roles: [], claims: {} });
    await expect(guardFor(API_KEYS).canActivate(routeContext(TicketsController, create, bridged))).resolves.toBe(true);
    expect((bridged.user as McpPrincipal).id).toBe('mcp-caller');
    // Anything else on request.user is not a principal: the key decides.
    const forged = request({}, 'admin');
    await expect(guardFor(API_KEYS).canActivate(routeContext(TicketsController, create, forged))).rejects.toThrow(
      UnauthorizedException,
    );
  });

  it('with authentication off, the caller is the host’s fixed principal, and scopes still apply', async () => {
    const operator = { id: 'local-operator', scopes: ['tickets:read', 'tickets:write'], roles: ['admin'] };
    const open = request();
    await expect(
      guardFor({ mode: 'none', principal: operator }).canActivate(routeContext(TicketsController, create, open)),
    ).resolves.toBe(true);
    expect(open.user).toMatchObject(operator);
    await expect(
      guardFor({ mode: 'none', principal: { id: 'viewer', scopes: ['tickets:read'] } }).canActivate(
        routeContext(TicketsController, create, request()),
      ),
    ).rejects.toThrow(ForbiddenException);
  });

  it('locks an address out with 429 and Retry-After after repeated bad keys, as the MCP endpoint does', async () => {
    const guard = guardFor(API_KEYS, new AuthFailureLimiter(2, 60_000));
    const bad = () => guard.canActivate(routeContext(TicketsController, getTicket, request({ 'x-api-key': 'guess' })));
    await expect(bad()).rejects.toThrow(UnauthorizedException);
    await expect(bad()).rejects.toThrow(UnauthorizedException);
    const locked = bad();
    await expect(locked).rejects.toThrow(HttpException);
    await expect(locked).rejects.toMatchObject({ status: 429 });
    expect(Number(headers['Retry-After'])).toBeGreaterThan(0);
    // A valid key from the same address still gets in: others' failures never lock it out.
    const valid = guard.canActivate(routeContext(TicketsController, getTicket, request({ 'x-api-key': KEYS.reader })));
    await expect(valid).resolves.toBe(true);
  });

  it('leaves contexts other than HTTP to their own guards', async () => {
    const context = routeContext(TicketsController, create, request(), 'mcp');
    await expect(guardFor(API_KEYS).canActivate(context)).resolves.toBe(true);
  });
});
