import { passesFilter, UpstreamNamespace } from './upstream-namespace';

describe('UpstreamNamespace', () => {
  const names = new UpstreamNamespace('everything', 'demo', '__');

  it('prefixes tool and prompt names', () => {
    expect(names.tool('get-sum')).toBe('demo__get-sum');
  });

  it('rewrites URIs and templates to the gateway and back, leaving template variables alone', () => {
    expect(names.uri('demo://resource/dynamic/text/{resourceId}')).toBe(
      'everything+demo://resource/dynamic/text/{resourceId}',
    );
    expect(names.upstreamUri('everything+file:///etc/hosts')).toBe('file:///etc/hosts');
    expect(names.upstreamUri('other+file:///etc/hosts')).toBeUndefined();
    expect(names.upstreamUri('file:///etc/hosts')).toBeUndefined();
  });

  it('keeps an MCP Apps view a ui:// URI (the upstream in its authority), and renames the view a tool names', () => {
    const names = new UpstreamNamespace('basic', 'basic', '__');
    expect(names.uri('ui://get-time/mcp-app.html')).toBe('ui://basic+get-time/mcp-app.html');
    expect(names.upstreamUri('ui://basic+get-time/mcp-app.html')).toBe('ui://get-time/mcp-app.html');
    expect(names.upstreamUri('ui://other+get-time/mcp-app.html')).toBeUndefined();
    expect(
      names.rewriteUris({ contents: [{ uri: 'ui://get-time/mcp-app.html', text: '<p>', _meta: { ui: {} } }] }),
    ).toEqual({
      contents: [{ uri: 'ui://basic+get-time/mcp-app.html', text: '<p>', _meta: { ui: {} } }],
    });
    const meta = {
      ui: { resourceUri: 'ui://get-time/app.html', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://get-time/app.html',
      x: 1,
    };
    expect(names.toolMeta(meta)).toEqual({
      ui: { resourceUri: 'ui://basic+get-time/app.html', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://basic+get-time/app.html',
      x: 1,
    });
    const plain = { x: 1 };
    expect(names.toolMeta(plain)).toBe(plain);
    expect(names.toolMeta(undefined)).toBeUndefined();
  });

  it('rewrites the URIs of resource contents, embedded resources and resource links, not other uri fields', () => {
    const result = {
      content: [
        { type: 'text', text: 'see uri' },
        { type: 'resource', resource: { uri: 'demo://a', text: 'A' } },
        { type: 'resource_link', uri: 'demo://b', name: 'b' },
        { type: 'text', text: 'x', _meta: { uri: 'demo://kept', text: 'meta is the upstream’s' } },
      ],
      structuredContent: { uri: 'https://example.com/not-a-resource' },
    };
    const rewritten = names.rewriteUris(result);
    expect(rewritten.content[1]).toEqual({ type: 'resource', resource: { uri: 'everything+demo://a', text: 'A' } });
    expect(rewritten.content[2]).toEqual({ type: 'resource_link', uri: 'everything+demo://b', name: 'b' });
    expect(rewritten.content[3]._meta).toEqual({ uri: 'demo://kept', text: 'meta is the upstream’s' });
    expect(rewritten.structuredContent).toEqual({ uri: 'https://example.com/not-a-resource' });
    expect(result.content[1]).toEqual({ type: 'resource', resource: { uri: 'demo://a', text: 'A' } });
  });
});

describe('passesFilter', () => {
  it('keeps everything without a filter', () => {
    expect(passesFilter('delete_all', {})).toBe(true);
  });

  it('keeps only what allow matches, then drops what deny matches, with * as a wildcard', () => {
    const filter = { allow: ['search_*', 'get-sum'], deny: ['search_secrets'] };
    expect(passesFilter('search_tickets', filter)).toBe(true);
    expect(passesFilter('get-sum', filter)).toBe(true);
    expect(passesFilter('search_secrets', filter)).toBe(false);
    expect(passesFilter('delete_all', filter)).toBe(false);
  });

  it('takes pattern characters other than * literally', () => {
    expect(passesFilter('demo://a.b', { allow: ['demo://a.b'] })).toBe(true);
    expect(passesFilter('demo://aXb', { allow: ['demo://a.b'] })).toBe(false);
    expect(passesFilter('an empty allow list keeps nothing', { allow: [] })).toBe(false);
  });
});
