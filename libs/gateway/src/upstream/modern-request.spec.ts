import { encodeHeaderValue, modernHeaders, withEnvelope } from './modern-request';

describe('2026-07-28 requests to an upstream', () => {
  it('sends visible ASCII as is and anything else Base64-encoded', () => {
    expect(encodeHeaderValue('get_ticket')).toBe('get_ticket');
    expect(encodeHeaderValue('a b')).toBe('a b');
    expect(encodeHeaderValue('Zürich')).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    // Whitespace around a value would be dropped on the way: it is kept inside the encoding.
    expect(encodeHeaderValue(' padded ')).toBe(`=?base64?${Buffer.from(' padded ').toString('base64')}?=`);
    expect(encodeHeaderValue('')).toBe('=?base64??=');
    // A literal value shaped like an encoded one is encoded, so it is not read as one.
    expect(encodeHeaderValue('=?base64?abc?=')).toBe(`=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`);
  });

  it('names the method and what it is about, and mirrors the marked arguments', () => {
    const params = { name: 'locate', arguments: { shelf: 'B7', size: { rows: 3 }, fragile: false, note: null } };
    expect(
      modernHeaders('tools/call', params, '2026-07-28', [
        { header: 'Shelf', path: ['shelf'], type: 'string' },
        { header: 'Rows', path: ['size', 'rows'], type: 'integer' },
        { header: 'Fragile', path: ['fragile'], type: 'boolean' },
        { header: 'Note', path: ['note'], type: 'string' },
        { header: 'Missing', path: ['size', 'columns'], type: 'integer' },
      ]),
    ).toEqual({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'locate',
      'mcp-param-shelf': 'B7',
      'mcp-param-rows': '3',
      'mcp-param-fragile': 'false',
    });
    expect(modernHeaders('resources/read', { uri: 'kb://a' }, '2026-07-28')).toMatchObject({ 'mcp-name': 'kb://a' });
    expect(modernHeaders('tools/list', {}, '2026-07-28')).not.toHaveProperty('mcp-name');
  });

  it("puts the envelope in _meta, leaving the request's own _meta keys as they are", () => {
    const client = { protocolVersion: '2026-07-28', clientInfo: { name: 'gw', version: '1' }, capabilities: {} };
    expect(withEnvelope({ name: 'x', _meta: { progressToken: 'p1' } }, client)).toEqual({
      name: 'x',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'gw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/logLevel': 'debug',
        progressToken: 'p1',
      },
    });
  });
});
