import type { McpUpstreamOptions } from '#libs/gateway';
import type { McpRestApiOptions } from '#libs/rest';
import { keepApiSecrets, keepSecrets, redacted, redactedApi } from './secrets';

describe('secrets of the document', () => {
  it('shows an upstream’s bearer, header values and OAuth secret redacted, and keeps them when sent back so', () => {
    const upstream: McpUpstreamOptions = {
      name: 'wiki',
      transport: {
        type: 'http',
        url: 'https://wiki.example/mcp',
        bearer: 'b-secret',
        headers: { 'x-key': 'h-secret' },
        oauth: { tokenUrl: 'https://id.example/token', clientId: 'wiki', clientSecret: 'o-secret' },
      },
    };
    const shown = redacted(upstream);
    expect(JSON.stringify(shown)).not.toMatch(/secret/);
    expect(keepSecrets(shown, upstream)).toEqual(upstream);
    // A new value replaces the stored one.
    const changed = { ...shown, transport: { ...shown.transport, bearer: 'b-new' } };
    expect((keepSecrets(changed, upstream) as McpUpstreamOptions).transport).toMatchObject({
      bearer: 'b-new',
      headers: { 'x-key': 'h-secret' },
    });
  });

  it('shows an API’s credentials redacted (not the names of where they go), and keeps them when sent back so', () => {
    const api: McpRestApiOptions = {
      name: 'billing',
      document: 'https://billing.example/openapi.json',
      credentials: {
        bearer: 'b-secret',
        headers: { 'x-key': 'h-secret' },
        basic: { username: 'svc', password: 'p-secret' },
        apiKey: { in: 'query', name: 'key', value: 'k-secret' },
      },
    };
    const shown = redactedApi(api);
    expect(JSON.stringify(shown)).not.toMatch(/secret/);
    expect(shown.credentials).toMatchObject({ basic: { username: 'svc' }, apiKey: { in: 'query', name: 'key' } });
    expect(keepApiSecrets(shown, api)).toEqual(api);
    expect(keepApiSecrets(shown, undefined)).toEqual(shown);
  });
});
