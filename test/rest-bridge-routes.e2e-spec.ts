import {
  Body,
  Catch,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  Headers,
  HttpCode,
  Injectable,
  Param,
  Post,
  Query,
  Req,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import type { ArgumentsHost, CanActivate, ExceptionFilter, ExecutionContext, INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { IsInt, IsOptional, IsString, Min, MinLength, Validate, ValidatorConstraint } from 'class-validator';
import type { ValidatorConstraintInterface } from 'class-validator';
import { Authenticator, McpExpose, RequireScopes, hashApiKey, type McpPrincipal } from 'nest-mcp-host';
import { McpModule } from '#libs/hosting';
import { isMcpRestRequest, REST_RESULT_META } from '#libs/rest';
import { CapturingLogger } from './support/capturing-logger';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';

// Several hosts start here: on a busy CI machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

const KEYS = { clerk: 'clerk-key-0123456789', viewer: 'viewer-key-0123456789', visitor: 'visitor-key-0123456789' };
const READ_TOOLS = ['InventoryController_get', 'InventoryController_list'];
const WRITE_TOOLS = ['InventoryController_remove', 'addItem'];

class ItemNotFound extends Error {}

/** A rule JSON Schema cannot state: the host's schema check lets it through, the route's ValidationPipe does not. */
@ValidatorConstraint({ name: 'notReserved' })
class NotReserved implements ValidatorConstraintInterface {
  validate = (value: unknown) => typeof value === 'string' && !value.toLowerCase().startsWith('reserved');
  defaultMessage = () => '$property must not start with "reserved"';
}

class NewItemDto {
  @IsString() @MinLength(3) @Validate(NotReserved) name: string;
  @IsInt() @Min(1) quantity: number;
  @IsString() @Validate(NotReserved) sku: string;
  @IsOptional() @IsString() note?: string;
}

type InventoryRequest = { headers: Record<string, string>; user?: McpPrincipal };

/** Lets in staff only: the principal the bridge put on request.user, or the one an HTTP client's key names. */
@Injectable()
class StaffGuard implements CanActivate {
  constructor(private readonly moduleRef: ModuleRef) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<InventoryRequest>();
    if (!isMcpRestRequest(request)) {
      const auth = await this.moduleRef.get(Authenticator, { strict: false }).authenticate(request.headers);
      if (!auth.ok) throw new UnauthorizedException(auth.description);
      request.user = auth.principal;
    }
    if (!request.user?.roles.includes('staff')) throw new ForbiddenException(`${request.user?.id} is not staff`);
    return true;
  }
}

@Catch(ItemNotFound)
class ItemNotFoundFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: ItemNotFound, host: ArgumentsHost): void {
    const body = { statusCode: 404, error: 'ItemNotFound', message: error.message };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, 404);
  }
}

@McpExpose()
@RequireScopes('items:read')
@UseGuards(StaffGuard)
@UseFilters(ItemNotFoundFilter)
@UsePipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }))
@Controller('api/items')
class InventoryController {
  private readonly items = new Map([
    ['I-1', { id: 'I-1', name: 'Hex bolt', quantity: 40, sku: 'HB-8', createdBy: 'seed' }],
    ['I-2', { id: 'I-2', name: 'Hex nut', quantity: 75, sku: 'HN-8', createdBy: 'seed' }],
  ]);

  @Get(':itemId')
  get(@Param('itemId') itemId: string) {
    const item = this.items.get(itemId);
    if (!item) throw new ItemNotFound(`No item ${itemId}`);
    return item;
  }

  @Get()
  list(@Query('q') q: string, @Query('limit') limit: number, @Headers('x-warehouse') warehouse: string) {
    const found = [...this.items.values()].filter((item) => !q || item.name.toLowerCase().includes(q.toLowerCase()));
    return { warehouse: warehouse ?? 'main', items: found.slice(0, limit ?? found.length) };
  }

  @Post()
  @RequireScopes('items:write')
  @McpExpose({ name: 'addItem', description: 'Adds an item to the inventory' })
  create(@Body() dto: NewItemDto, @Req() request: InventoryRequest) {
    const item = { id: `I-${this.items.size + 1}`, ...dto, createdBy: request.user!.id };
    this.items.set(item.id, item);
    return item;
  }

  @Delete(':itemId')
  @HttpCode(204)
  @RequireScopes('items:write')
  remove(@Param('itemId') itemId: string): void {
    if (!this.items.delete(itemId)) throw new ItemNotFound(`No item ${itemId}`);
  }
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();

describe('the REST bridge describing routes from Nest metadata (rest.metadata: routes)', () => {
  let app: INestApplication;
  let base: string;
  let clerk: Client;
  const clients: Client[] = [];
  const connect = async (key: string) => {
    clients.push(await connectHttpClient(`${base}/mcp`, { 'x-api-key': key }));
    return clients.at(-1)!;
  };
  /** The same request over plain HTTP, with the clerk's key. */
  const rest = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': KEYS.clerk, ...headers } });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  beforeAll(async () => {
    const keys = [
      { hash: hashApiKey(KEYS.clerk), principal: 'clerk-1', scopes: ['items:read', 'items:write'], roles: ['staff'] },
      { hash: hashApiKey(KEYS.viewer), principal: 'viewer-1', scopes: ['items:read'], roles: ['staff'] },
      { hash: hashApiKey(KEYS.visitor), principal: 'visitor-1', scopes: ['items:read'], roles: [] },
    ];
    const mcp = McpModule.forRoot({
      name: 'inventory',
      version: '1.0.0',
      auth: { mode: 'apiKey', keys },
      // @nestjs/swagger is installed: with the default ('auto') it would describe the routes.
      rest: { metadata: 'routes' },
    });
    app = await startTestApp({ imports: [mcp], controllers: [InventoryController] });
    base = await baseUrlOf(app);
    clerk = await connect(KEYS.clerk);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  it('lists each route as a tool, its input from @Param, @Query, @Headers and the DTO', async () => {
    const { tools } = await clerk.listTools();
    expect(names(tools)).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
    expect(tool('InventoryController_get')).toMatchObject({
      description: 'GET /api/items/{itemId}',
      inputSchema: { type: 'object', properties: { itemId: { type: 'string' } }, required: ['itemId'] },
      annotations: { readOnlyHint: true },
      _meta: {
        [REST_RESULT_META]: { method: 'GET', path: '/api/items/{itemId}', operationId: 'InventoryController_get' },
      },
    });
    expect(tool('InventoryController_list').inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'number' }, 'x-warehouse': { type: 'string' } },
    });
    expect(tool('addItem')).toMatchObject({
      description: 'Adds an item to the inventory',
      annotations: { readOnlyHint: false },
      _meta: { [REST_RESULT_META]: { method: 'POST', operationId: 'InventoryController_create' } },
    });
    expect(tool('addItem').inputSchema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 3 },
        quantity: { type: 'integer', minimum: 1 },
        sku: { type: 'string' },
        note: { type: 'string' },
      },
      required: ['name', 'quantity', 'sku'],
    });
    const remove = tool('InventoryController_remove');
    expect(remove.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
  });

  it('answers a call with what the same request answers over HTTP', async () => {
    const item = await call(clerk, 'InventoryController_get', { itemId: 'I-1' });
    const overHttp = await rest('/api/items/I-1');
    expect(overHttp).toEqual({ status: 200, body: expect.objectContaining({ id: 'I-1', name: 'Hex bolt' }) });
    expect(item.isError).toBeFalsy();
    expect(item.structuredContent).toEqual(overHttp.body);
    expect(JSON.parse(textOf(item))).toEqual(overHttp.body);

    const listed = await call(clerk, 'InventoryController_list', { q: 'hex', limit: 1, 'x-warehouse': 'north' });
    const listedOverHttp = await rest('/api/items?q=hex&limit=1', { 'x-warehouse': 'north' });
    expect(listedOverHttp.body).toEqual({ warehouse: 'north', items: [expect.objectContaining({ id: 'I-1' })] });
    expect(listed.structuredContent).toEqual(listedOverHttp.body);
  });

  it("returns what only the route's ValidationPipe refuses as an isError result naming each field", async () => {
    const refused = await call(clerk, 'addItem', { name: 'reserved bolt', quantity: 2, sku: 'reserved-9' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused).split('\n')).toEqual([
      'POST /api/items failed (400 Bad Request)',
      '- name: must not start with "reserved"',
      '- sku: must not start with "reserved"',
    ]);
    expect(refused._meta?.[REST_RESULT_META]).toEqual({
      status: 400,
      fields: [
        { field: 'name', messages: ['name must not start with "reserved"'] },
        { field: 'sku', messages: ['sku must not start with "reserved"'] },
      ],
      messages: [],
    });
    // What the schema states, the host refuses before the route is called: no HTTP status.
    const short = await call(clerk, 'addItem', { name: 'ab', quantity: 2, sku: 'HB-9' });
    expect(short.isError).toBe(true);
    expect(short._meta?.[REST_RESULT_META]).toBeUndefined();
    expect(textOf(short)).toBe('Invalid arguments for tool "addItem":\n- name: must NOT have fewer than 3 characters');
  });

  it("returns the exception filter's 404 as an isError result with its status", async () => {
    const missing = await call(clerk, 'InventoryController_get', { itemId: 'I-404' });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'GET /api/items/{itemId} failed (404 Not Found): No item I-404' }],
      _meta: { [REST_RESULT_META]: { status: 404, fields: [], messages: ['No item I-404'] } },
    });
  });

  it('neither lists nor calls the write routes for the read-only key', async () => {
    const viewer = await connect(KEYS.viewer);
    expect(names((await viewer.listTools()).tools)).toEqual(READ_TOOLS);
    await expect(call(viewer, 'addItem', { name: 'Washer', quantity: 5, sku: 'W-8' })).rejects.toThrow(
      /Unknown tool: addItem/,
    );
    await expect(call(viewer, 'InventoryController_remove', { itemId: 'I-1' })).rejects.toThrow(/Unknown tool/);
    expect((await rest('/api/items/I-1')).status).toBe(200);
  });

  it("gives the route's guard the MCP principal on request.user", async () => {
    const added = await call(clerk, 'addItem', { name: 'Washer', quantity: 5, sku: 'W-8', note: 'zinc' });
    expect(added.isError).toBeFalsy();
    const { id, ...item } = added.structuredContent as { id: string };
    expect(item).toEqual({ name: 'Washer', quantity: 5, sku: 'W-8', note: 'zinc', createdBy: 'clerk-1' });
    expect((await rest(`/api/items/${id}`)).body).toEqual(added.structuredContent);

    // visitor-1 holds the scope (the host lists the route to it) but not the role the guard wants.
    const visitor = await connect(KEYS.visitor);
    expect(names((await visitor.listTools()).tools)).toEqual(READ_TOOLS);
    const refused = await call(visitor, 'InventoryController_get', { itemId: 'I-1' });
    expect(refused).toEqual({ content: [{ type: 'text', text: 'visitor-1 is not staff' }], isError: true });

    // The DELETE route is destructive: by default (rest.confirm 'destructive') the user confirms it first.
    const asked: string[] = [];
    const confirming = await connectHttpClient(
      `${base}/mcp`,
      { 'x-api-key': KEYS.clerk },
      { capabilities: { elicitation: { form: {} } } },
    );
    clients.push(confirming);
    confirming.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    expect(textOf(await call(confirming, 'InventoryController_remove', { itemId: id }))).toBe('No content (204)');
    expect(asked).toEqual([`Allow "InventoryController_remove" to run with {"itemId":"${id}"}?`]);
    expect((await rest(`/api/items/${id}`)).status).toBe(404);
  });
});

describe('routes whose writes nothing decided to confirm, at start-up', () => {
  it('lists them in one warning naming each route and the fix, and not once they are decided', async () => {
    const warningsOf = async (rest: Parameters<typeof McpModule.forRoot>[0]['rest']) => {
      const logger = new CapturingLogger();
      const moduleRef = await Test.createTestingModule({
        imports: [McpModule.forRoot({ name: 'inventory', version: '1.0.0', rest })],
        controllers: [InventoryController],
      }).compile();
      const app = moduleRef.createNestApplication({ logger });
      await app.init();
      await app.close();
      return logger.at('warn').filter((line) => line.includes('confirmation'));
    };
    expect(await warningsOf({ metadata: 'routes' })).toEqual([
      "rest.confirm: 1 exposed write(s) run without a person's confirmation, and nothing decided so: " +
        'POST /api/items (InventoryController_create). An agent calling them changes data at once, even where the ' +
        'same action done by an MCP tool is held for approval (decide each: @McpExpose({ confirm: true }) on the route ' +
        "to confirm it or { confirm: false } to let it run, or rest.confirm: { ask: { operationIds: ['InventoryController_create'] } } " +
        "to confirm it, or { skip: { operationIds: ['InventoryController_create'] } } to let it run; or rest.confirm: 'writes' " +
        "(every write asks) or 'destructive' (only DELETE and operations marked destructive))",
    ]);
    expect(
      await warningsOf({ metadata: 'routes', confirm: { skip: { operationIds: ['InventoryController_create'] } } }),
    ).toEqual([]);
  });
});
