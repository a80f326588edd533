import { Body, Controller, Get, Post, Version, VersioningType, type INestApplication } from '@nestjs/common';
import type { VersioningOptions } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpExpose } from 'nest-mcp-host';
import { McpModule } from '#libs/hosting';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';

// Several hosts start here: on a busy CI machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

/** Two versions of one route, a route outside the global prefix, and bodies that are no DTO. */
@McpExpose()
@Controller('orders')
class OrdersController {
  @Get(':orderId')
  @Version('1')
  v1() {
    return { version: 1 };
  }

  @Get(':orderId')
  @Version('2')
  @McpExpose({ name: 'getOrderV2' })
  v2() {
    return { version: 2 };
  }

  @Get('ping')
  ping() {
    return { pong: true };
  }

  @Post('batch')
  @McpExpose({ name: 'batch' })
  batch(@Body() lines: { sku: string }[]) {
    return { received: lines.length, skus: lines.map(({ sku }) => sku) };
  }

  @Post('note')
  @McpExpose({ name: 'note' })
  note(@Body() note: Record<string, unknown>) {
    return { keys: Object.keys(note).sort() };
  }
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return result.structuredContent;
};
const pathOf = (tools: Tool[], name: string) =>
  (tools.find((tool) => tool.name === name)?._meta?.['nest-mcp-host/rest'] as { path: string } | undefined)?.path;

/**
 * The bridge calls each route where the application serves it: global prefix and its
 * exclusions, and each way Nest selects a version (path, header, media type).
 */
describe.each<[string, VersioningOptions]>([
  ['URI versioning', { type: VersioningType.URI, defaultVersion: '1' }],
  ['header versioning', { type: VersioningType.HEADER, header: 'X-API-Version', defaultVersion: '1' }],
  ['media-type versioning', { type: VersioningType.MEDIA_TYPE, key: 'v=', defaultVersion: '1' }],
])('the REST bridge on an app with a global prefix and %s', (_name, versioning) => {
  let app: INestApplication;
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    app = await startTestApp(
      {
        imports: [McpModule.forRoot({ name: 'paths', version: '1.0.0', rest: { metadata: 'routes' } })],
        controllers: [OrdersController],
      },
      (created) => {
        created.setGlobalPrefix('api', { exclude: ['orders/ping'] });
        created.enableVersioning(versioning);
      },
    );
    client = await connectHttpClient(`${await baseUrlOf(app)}/mcp`);
    ({ tools } = await client.listTools());
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it("calls each version of a route as the app serves it, and names each tool's path", async () => {
    expect(await call(client, 'OrdersController_v1', { orderId: 'O-1' })).toEqual({ version: 1 });
    expect(await call(client, 'getOrderV2', { orderId: 'O-1' })).toEqual({ version: 2 });
    const uri = versioning.type === VersioningType.URI;
    expect(pathOf(tools, 'OrdersController_v1')).toBe(uri ? '/api/v1/orders/{orderId}' : '/api/orders/{orderId}');
    expect(pathOf(tools, 'getOrderV2')).toBe(uri ? '/api/v2/orders/{orderId}' : '/api/orders/{orderId}');
  });

  it('calls a route excluded from the global prefix without it', async () => {
    expect(await call(client, 'OrdersController_ping')).toEqual({ pong: true });
    expect(pathOf(tools, 'OrdersController_ping')).toBe(
      versioning.type === VersioningType.URI ? '/v1/orders/ping' : '/orders/ping',
    );
  });

  it('sends a whole @Body() that is no DTO class as the one body argument', async () => {
    const batch = tools.find((tool) => tool.name === 'batch')!;
    expect(batch.inputSchema).toMatchObject({ properties: { body: { type: 'array' } }, required: ['body'] });
    expect(await call(client, 'batch', { body: [{ sku: 'A' }, { sku: 'B' }] })).toEqual({
      received: 2,
      skus: ['A', 'B'],
    });
    expect(await call(client, 'note', { body: { text: 'hi', by: 'me' } })).toEqual({ keys: ['by', 'text'] });
  });
});
