import { getEventListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  type ArgumentsHost,
  Body,
  Catch,
  type CallHandler,
  type CanActivate,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  ForbiddenException,
  Get,
  type INestApplication,
  Injectable,
  Module,
  type NestInterceptor,
  Param,
  Post,
  Query,
  Req,
  StreamableFile,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsInt, IsNotEmpty, IsString, Min } from 'class-validator';
import { map, type Observable } from 'rxjs';
import type { RestRequestParts } from '../openapi/rest-operation';
import { runInProcess } from './in-process-request';
import { isMcpRestRequest } from '#libs/core';

class CreateItemDto {
  @IsString()
  @IsNotEmpty()
  name!: string;

  @IsInt()
  @Min(1)
  priority!: number;
}

class ItemLockedError extends Error {}

@Catch(ItemLockedError)
class ItemLockedFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: ItemLockedError, host: ArgumentsHost) {
    const body = { statusCode: 409, message: error.message, error: 'Conflict' };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, 409);
  }
}

@Injectable()
class AgentGuard implements CanActivate {
  static readonly seen: unknown[] = [];
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<{ user?: { role?: string } }>().user;
    AgentGuard.seen.push(user);
    if (user?.role !== 'agent') throw new ForbiddenException('Only agents may read the queue');
    return true;
  }
}

@Injectable()
class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data, intercepted: true })));
  }
}

/** Node's request (Express's extends it) or Fastify's, which holds Node's as `raw`. */
type Seen = IncomingMessage & { seenByMiddleware?: boolean; ip?: string };

/** What the slow route saw of its request going away, and a signal that it was reached. */
const slow = { closed: false, aborted: false };
let reachedSlow: () => void = () => undefined;

@Controller('items')
class ItemsController {
  @Get('queue')
  @UseGuards(AgentGuard)
  queue(@Req() request: { user: unknown }) {
    return { user: request.user };
  }

  @Get('locked')
  @UseFilters(ItemLockedFilter)
  locked(): never {
    throw new ItemLockedError('Item I-7 is locked by another agent');
  }

  @Get('export')
  export(): StreamableFile {
    return new StreamableFile(Readable.from([Buffer.from('id,name\n'), Buffer.from('1,a\n'), Buffer.from('2,b\n')]), {
      type: 'text/csv',
    });
  }

  @Get('slow')
  slow(@Req() request: IncomingMessage | { raw: IncomingMessage }): Promise<never> {
    const raw = 'raw' in request ? request.raw : request;
    raw.on('aborted', () => (slow.aborted = true));
    raw.on('close', () => (slow.closed = true));
    reachedSlow();
    return new Promise<never>(() => undefined);
  }

  @Get('headers')
  headers(@Req() request: Seen & ({ raw: Seen } | object)) {
    return {
      headers: request.headers,
      middleware: ('raw' in request ? request.raw : request).seenByMiddleware,
      marked: isMcpRestRequest(request),
      ip: request.ip,
    };
  }

  @Get(':id')
  @UseInterceptors(EnvelopeInterceptor)
  one(@Param('id') id: string, @Query('full') full?: string) {
    return { id, full: full === 'true' };
  }

  @Post()
  @UsePipes(new ValidationPipe())
  create(@Body() body: CreateItemDto) {
    return { id: 'I-1', ...body };
  }
}

@Module({ controllers: [ItemsController] })
class ItemsModule {}

const get = (url: string, headers: Record<string, string> = {}): RestRequestParts => ({ method: 'GET', url, headers });

describe.each([['express'], ['fastify']])('runInProcess (%s)', (platform) => {
  let app: INestApplication;
  let adapter: HttpAdapterHost['httpAdapter'];

  beforeAll(async () => {
    app =
      platform === 'fastify'
        ? await NestFactory.create(ItemsModule, new FastifyAdapter(), { logger: false })
        : await NestFactory.create(ItemsModule, { logger: false });
    // Middleware on Node's request, as Nest gives it on both platforms.
    app.use((request: { seenByMiddleware?: boolean }, _response: unknown, next: () => void) => {
      request.seenByMiddleware = true;
      next();
    });
    adapter = app.get(HttpAdapterHost).httpAdapter;
    // What the REST bridge does when it exposes routes, before the application listens.
    await app.init();
  });

  afterAll(async () => {
    await app.close();
  });

  it('routes path and query parameters and runs the route interceptor', async () => {
    const outcome = await runInProcess(adapter, get('/items/I-42?full=true'));
    expect(outcome.status).toBe(200);
    expect(outcome.headers['content-type']).toMatch(/^application\/json/);
    expect(outcome.json).toEqual({ data: { id: 'I-42', full: true }, intercepted: true });
    expect(JSON.parse(outcome.body.toString('utf8'))).toEqual(outcome.json);
  });

  it('posts a JSON body that passes the ValidationPipe', async () => {
    const outcome = await runInProcess(adapter, {
      method: 'POST',
      url: '/items',
      headers: { 'content-type': 'application/json' },
      body: { name: 'Printer', priority: 2 },
    });
    expect(outcome.status).toBe(201);
    expect(outcome.json).toEqual({ id: 'I-1', name: 'Printer', priority: 2 });
  });

  it("answers a body the ValidationPipe refuses with its 400 and each field's message", async () => {
    const outcome = await runInProcess(adapter, {
      method: 'POST',
      url: '/items',
      headers: { 'content-type': 'application/json' },
      body: { name: '', priority: 0 },
    });
    expect(outcome.status).toBe(400);
    expect(outcome.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['name should not be empty', 'priority must not be less than 1'],
    });
  });

  it('gives the guard the caller as request.user', async () => {
    AgentGuard.seen.length = 0;
    const user = { id: 'u-1', role: 'agent' };
    const outcome = await runInProcess(adapter, get('/items/queue'), { user });
    expect(outcome.status).toBe(200);
    expect(outcome.json).toEqual({ user });
    expect(AgentGuard.seen).toEqual([user]);
  });

  it("answers the guard's refusal as the route does", async () => {
    const outcome = await runInProcess(adapter, get('/items/queue'), { user: { id: 'u-2', role: 'customer' } });
    expect(outcome.status).toBe(403);
    expect(outcome.json).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Only agents may read the queue' });
  });

  it("answers with the exception filter's mapped error", async () => {
    const outcome = await runInProcess(adapter, get('/items/locked'));
    expect(outcome.status).toBe(409);
    expect(outcome.json).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'Item I-7 is locked by another agent',
    });
  });

  it('concatenates a streamed StreamableFile', async () => {
    const outcome = await runInProcess(adapter, get('/items/export'));
    expect(outcome.status).toBe(200);
    expect(outcome.headers['content-type']).toBe('text/csv');
    expect(outcome.body.toString('utf8')).toBe('id,name\n1,a\n2,b\n');
    expect(outcome.json).toBeUndefined();
  });

  it('sends only the parameters it was given, marked, from loopback, past the app middleware', async () => {
    const outcome = await runInProcess(adapter, get('/items/headers', { 'x-tenant': 'acme' }), {
      user: { id: 'u-1' },
    });
    expect(outcome.json).toEqual({
      headers: { accept: 'application/json', host: 'localhost', 'x-tenant': 'acme' },
      middleware: true,
      marked: true,
      ip: '127.0.0.1',
    });
  });

  it("comes from the MCP client's address when given, so address-based rules judge the real client", async () => {
    const v4 = await runInProcess(adapter, get('/items/headers'), { remoteAddress: '203.0.113.7' });
    expect(v4.json).toMatchObject({ ip: '203.0.113.7' });
    const v6 = await runInProcess(adapter, get('/items/headers'), { remoteAddress: '2001:db8::7' });
    expect(v6.json).toMatchObject({ ip: '2001:db8::7' });
  });

  it('never lets a parameter override the connection headers', async () => {
    const outcome = await runInProcess(
      adapter,
      get('/items/headers', { host: 'evil.example', 'transfer-encoding': 'chunked', accept: 'text/plain' }),
    );
    expect((outcome.json as { headers: unknown }).headers).toEqual({ accept: 'text/plain', host: 'localhost' });
  });

  it('answers an unknown route with Nest’s 404', async () => {
    const outcome = await runInProcess(adapter, get('/nowhere'));
    expect(outcome.status).toBe(404);
    expect(outcome.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /nowhere' });
  });

  it('abandons a route that never answers when the signal aborts, and leaves no listener', async () => {
    Object.assign(slow, { closed: false, aborted: false });
    const controller = new AbortController();
    const reached = new Promise<void>((resolve) => (reachedSlow = resolve));
    const pending = runInProcess(adapter, get('/items/slow'), { signal: controller.signal });
    await reached;
    expect(slow).toEqual({ closed: false, aborted: false });
    controller.abort(new Error('call cancelled'));
    await expect(pending).rejects.toThrow('call cancelled');
    expect(slow).toEqual({ closed: true, aborted: true });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes its abort listener once answered, and refuses an already aborted signal', async () => {
    const controller = new AbortController();
    await runInProcess(adapter, get('/items/I-1'), { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort(new Error('gone'));
    await expect(runInProcess(adapter, get('/items/I-1'), { signal: controller.signal })).rejects.toThrow('gone');
  });

  it('refuses a header value that cannot travel in HTTP', async () => {
    await expect(runInProcess(adapter, get('/items/I-1', { 'x-tenant': 'a\r\nx-admin: 1' }))).rejects.toThrow(
      'Header "x-tenant" cannot be sent',
    );
  });
});
