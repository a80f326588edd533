import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConformanceModule } from '../apps/conformance/src/conformance.module';
import { post2026, rpc2026 } from './support/stateless-request';

/** `text` as a header carries it when it is not plain ASCII (the spec's Base64 sentinel). */
const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('2026-07-28 request headers on the conformance app', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ConformanceModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
  });
  afterAll(() => app.close());

  const callHeaderTool = (args: Record<string, unknown>, headers: Record<string, string | undefined>) =>
    rpc2026(url, 'tools/call', { name: 'test_header_params', arguments: args }, headers);

  it('lists the tool with the x-mcp-header its DTO declares (@McpHeader)', async () => {
    const { body } = await rpc2026(url, 'tools/list');
    const tool = (body.result!.tools as { name: string; inputSchema: { properties: Record<string, object> } }[]).find(
      (candidate) => candidate.name === 'test_header_params',
    )!;
    expect(tool.inputSchema.properties.region).toEqual({ type: 'string', 'x-mcp-header': 'Region' });
    expect(tool.inputSchema.properties.shard).toEqual({ type: 'integer', 'x-mcp-header': 'Shard' });
  });

  it('runs a call whose headers mirror the body: names in any case, values Base64-encoded or plain, integers as numbers', async () => {
    const { status, body } = await callHeaderTool(
      { region: 'Zürich', shard: 7 },
      { 'MCP-PARAM-REGION': base64('Zürich'), 'mcp-param-shard': '7.0', 'MCP-NAME': ' test_header_params ' },
    );
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'region Zürich, shard 7' }],
    });
  });

  it.each([
    [
      'an Mcp-Method that names another method',
      { name: 'test_header_params', arguments: { region: 'eu' } },
      { 'mcp-method': 'tools/list', 'mcp-param-region': 'eu' },
    ],
    [
      'a missing Mcp-Name',
      { name: 'test_header_params', arguments: { region: 'eu' } },
      { 'mcp-name': undefined, 'mcp-param-region': 'eu' },
    ],
    [
      'an Mcp-Param header that differs from the argument',
      { name: 'test_header_params', arguments: { region: 'eu' } },
      { 'mcp-param-region': 'us' },
    ],
    [
      'a missing Mcp-Param header for an argument given',
      { name: 'test_header_params', arguments: { region: 'eu' } },
      {},
    ],
    [
      'broken Base64 in an Mcp-Param header',
      { name: 'test_header_params', arguments: { region: 'Hello' } },
      { 'mcp-param-region': '=?base64?SGVsbG8?=' },
    ],
  ])('refuses %s with HTTP 400 and -32020, before the tool runs', async (_case, params, headers) => {
    const response = await post2026(url, 'tools/call', params, { accept: 'application/json', ...headers }, { id: 99 });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: 99, error: { code: -32020 } });
  });

  it('leaves 2025-era requests to their own rules: no Mcp-Method needed', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
      '2025-11-25',
    );
  });
});
