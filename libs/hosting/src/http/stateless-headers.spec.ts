import type { IncomingHttpHeaders } from 'node:http';
import { JsonRpcErrorCode, type McpPrincipal } from '#libs/core';
import { OPEN_ACCESS, ToolRegistry, type RegisteredTool, type ToolHeaderParam } from '#libs/catalog';
import { ScopeAndRolePolicy } from '#libs/security';
import { AccessControl } from '#libs/protocol';
import { StatelessHeaders } from './stateless-headers';

const CALLER: McpPrincipal = { id: 'alice', scopes: [], roles: [], claims: {} };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const PARAMS: ToolHeaderParam[] = [
  { header: 'Region', path: ['region'], type: 'string' },
  { header: 'Shard', path: ['target', 'shard'], type: 'integer' },
  { header: 'Dry-Run', path: ['dryRun'], type: 'boolean' },
];

function tool(name: string, roles: string[] = []): RegisteredTool {
  return {
    key: name,
    name,
    where: `Spec.${name}`,
    definition: { name, inputSchema: { type: 'object' } },
    access: roles.length > 0 ? { scopes: [], roles } : OPEN_ACCESS,
    headerParams: PARAMS,
  } as unknown as RegisteredTool;
}

const tools = new ToolRegistry();
tools.register([tool('execute_sql'), tool('admin_sql', ['admin'])]);
const headers = new StatelessHeaders(tools, new AccessControl(new ScopeAndRolePolicy()));

/** Checks a request of `method` with the standard headers a client sends, plus `extra` (undefined: left out). */
function check(method: string, params: Record<string, unknown>, extra: Record<string, string | undefined> = {}) {
  const sent: IncomingHttpHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete sent[name];
    else sent[name] = value;
  }
  const error = headers.check(sent, method, { ...params, _meta: META }, CALLER);
  return error && { code: error.code, status: error.httpStatus, message: error.message };
}

const call = (args: Record<string, unknown>, name = 'execute_sql') => ({ name, arguments: args });
const mismatch = (message: string) => ({ code: JsonRpcErrorCode.HEADER_MISMATCH, status: 400, message });
const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('StatelessHeaders', () => {
  describe('Mcp-Method and Mcp-Name', () => {
    it('accepts headers equal to the body, whitespace around them dropped', () => {
      expect(check('tools/list', {})).toBeUndefined();
      expect(
        check('tools/call', call({}), { 'mcp-method': ' tools/call\t', 'mcp-name': '  execute_sql  ' }),
      ).toBeUndefined();
      expect(check('prompts/get', { name: 'triage' }, { 'mcp-name': 'triage' })).toBeUndefined();
      expect(check('resources/read', { uri: 'kb://a b' }, { 'mcp-name': base64('kb://a b') })).toBeUndefined();
      expect(check('tasks/get', { taskId: 't-1' }, { 'mcp-name': 't-1' })).toBeUndefined();
    });

    it.each([
      [
        'missing',
        undefined,
        `Header mismatch: the Mcp-Method header is required and must equal the body's method ("tools/list")`,
      ],
      [
        'naming another method',
        'prompts/list',
        'Header mismatch: Mcp-Method header value "prompts/list" does not match body method "tools/list"',
      ],
      [
        'in other case (values are case-sensitive)',
        'TOOLS/LIST',
        'Header mismatch: Mcp-Method header value "TOOLS/LIST" does not match body method "tools/list"',
      ],
      [
        'Base64-encoded (only Mcp-Name and Mcp-Param-* may be)',
        base64('tools/list'),
        'Header mismatch: Mcp-Method header value "=?base64?dG9vbHMvbGlzdA==?=" does not match body method "tools/list"',
      ],
    ])('refuses an Mcp-Method %s with -32020 and 400', (_case, value, message) => {
      expect(check('tools/list', {}, { 'mcp-method': value })).toEqual(mismatch(message));
    });

    it.each([
      [
        'missing',
        undefined,
        'Header mismatch: the Mcp-Name header is required for tools/call and must equal params.name',
      ],
      [
        'naming another tool',
        'wrong_tool_name',
        'Header mismatch: Mcp-Name header value "wrong_tool_name" does not match body params.name "execute_sql"',
      ],
      [
        'with a character outside visible ASCII',
        'execute_sql\u00e9',
        'Header mismatch: Mcp-Name holds characters other than visible ASCII, space and tab',
      ],
      [
        'with broken Base64',
        '=?base64?ZXhlY3V0ZV9zcWw?=',
        'Header mismatch: Mcp-Name is not valid Base64 between "=?base64?" and "?="',
      ],
      [
        'with Base64 of bytes that are not UTF-8',
        `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`,
        'Header mismatch: Mcp-Name is Base64 of something that is not UTF-8 text',
      ],
    ])('refuses an Mcp-Name %s', (_case, value, message) => {
      expect(check('tools/call', call({}), { 'mcp-name': value })).toEqual(mismatch(message));
    });

    it('leaves a body without the named field to the method (its -32602 says what is wrong)', () => {
      expect(check('tools/call', { arguments: {} })).toBeUndefined();
    });
  });

  describe('MCP-Protocol-Version', () => {
    it('is checked first: -32020 when missing, -32022 for a revision the host does not serve', () => {
      expect(check('tools/list', {}, { 'mcp-protocol-version': undefined, 'mcp-method': undefined })?.code).toBe(
        -32020,
      );
      const unsupported = headers.check(
        { 'mcp-protocol-version': 'v9', 'mcp-method': 'tools/list' },
        'tools/list',
        {},
        CALLER,
      );
      expect(unsupported).toMatchObject({ code: -32022, httpStatus: 400 });
    });
  });

  describe('Mcp-Param-* of a tool whose parameters are marked x-mcp-header', () => {
    const named = { 'mcp-name': 'execute_sql' };

    it('accepts each header equal to its argument: text, Base64 of the text, integers as numbers, booleans', () => {
      const args = { region: 'us-west1', target: { shard: 42 }, dryRun: true, query: 'SELECT 1' };
      const sent = { ...named, 'mcp-param-region': 'us-west1', 'mcp-param-shard': '42.0', 'mcp-param-dry-run': 'true' };
      expect(check('tools/call', call(args), sent)).toBeUndefined();
      expect(
        check('tools/call', call({ region: 'Hello, 世界' }), { ...named, 'mcp-param-region': base64('Hello, 世界') }),
      ).toBeUndefined();
    });

    it('reads a value with only half of the Base64 markers as literal text', () => {
      const encoded = Buffer.from('Hello').toString('base64');
      expect(check('tools/call', call({ region: encoded }), { ...named, 'mcp-param-region': encoded })).toBeUndefined();
      const open = `=?base64?${encoded}`;
      expect(check('tools/call', call({ region: open }), { ...named, 'mcp-param-region': open })).toBeUndefined();
    });

    it('expects no header for an argument that is absent or null', () => {
      expect(check('tools/call', call({ region: null }), named)).toBeUndefined();
      expect(check('tools/call', call({}), named)).toBeUndefined();
    });

    it.each([
      [
        { region: 'us-west1' },
        {},
        'Header mismatch: the Mcp-Param-Region header is required when arguments.region is given',
      ],
      [
        { region: 'us-west1' },
        { 'mcp-param-region': 'eu-west1' },
        'Header mismatch: Mcp-Param-Region header value "eu-west1" does not match body arguments.region "us-west1"',
      ],
      [
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVsbG8?=' },
        'Header mismatch: Mcp-Param-Region is not valid Base64 between "=?base64?" and "?="',
      ],
      [
        { region: 'Hello' },
        { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' },
        'Header mismatch: Mcp-Param-Region is not valid Base64 between "=?base64?" and "?="',
      ],
      [
        { region: 'Hello' },
        { 'mcp-param-region': 'Hell\u00f6' },
        'Header mismatch: Mcp-Param-Region holds characters other than visible ASCII, space and tab',
      ],
      [
        {},
        { 'mcp-param-region': 'us-west1' },
        'Header mismatch: Mcp-Param-Region is sent but arguments.region has no value',
      ],
      [
        { target: { shard: 43 } },
        { 'mcp-param-shard': '42' },
        'Header mismatch: Mcp-Param-Shard header value "42" does not match body arguments.target.shard 43',
      ],
      [
        { target: { shard: 42 } },
        { 'mcp-param-shard': 'forty-two' },
        'Header mismatch: Mcp-Param-Shard header value "forty-two" does not match body arguments.target.shard 42',
      ],
      [
        { dryRun: true },
        { 'mcp-param-dry-run': 'True' },
        'Header mismatch: Mcp-Param-Dry-Run header value "True" does not match body arguments.dryRun true',
      ],
    ])('refuses arguments %j with headers %j', (args, sent, message) => {
      expect(check('tools/call', call(args), { ...named, ...sent })).toEqual(mismatch(message));
    });

    it('does not check the headers of a tool the caller may not see (no hint that it exists)', () => {
      expect(
        check('tools/call', call({ region: 'us-west1' }, 'admin_sql'), { 'mcp-name': 'admin_sql' }),
      ).toBeUndefined();
    });
  });
});
