import type { OptionReport } from '#libs/core';
import { resolveRestApis } from '#libs/rest';
import { OutboundPolicies } from '#libs/security';
import { validateDocument } from './document.validator';

const policy = OutboundPolicies.runTime({
  allowHosts: ['127.0.0.1'],
  allowPrivateNetworks: false,
  ownPort: () => 3000,
});
const http = (name: string, url = 'http://127.0.0.1:4000/mcp') => ({ name, transport: { type: 'http', url } });

describe('validateDocument', () => {
  it('names every problem at once, each where it is and with its fix', async () => {
    const result = await validateDocument(
      {
        upstreams: [
          http('wiki'),
          http('wiki'),
          { name: 'shell', transport: { type: 'stdio', command: 'sh' } },
          http('crm'),
          http('meta', 'http://169.254.169.254/'),
        ],
        colour: 'blue',
      },
      { fixedUpstreams: new Set(['crm']), policy },
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => `${p.where}: ${p.problem}`);
    expect(problems).toEqual([
      'colour: is not a field of the document',
      'upstreams[1].name: "wiki" names another upstream too',
      expect.stringMatching(/^upstreams\[1\]\.prefix: /),
      'upstreams[2].transport.type: only http upstreams can be added at run time',
      'upstreams[3].name: "crm" is an upstream of the gateway option',
      expect.stringMatching(/^upstreams\[4\]\.transport\.url: 169\.254\.169\.254 is a cloud metadata address/),
    ]);
  });

  it('takes a valid document', async () => {
    expect(
      await validateDocument({ version: 3, upstreams: [http('wiki')] }, { fixedUpstreams: new Set(), policy }),
    ).toEqual({
      ok: true,
      upstreams: [http('wiki')],
    });
  });
});

describe('validateDocument: REST APIs', () => {
  const rest = {
    fixedNames: new Set(['petstore']),
    resolveApis: (given: unknown, report: OptionReport) => resolveRestApis(given, report),
  };

  it('validates them as rest.apis, and what only run time asks, every problem at once', async () => {
    const result = await validateDocument(
      {
        upstreams: [],
        apis: [
          { name: 'petstore', document: 'http://127.0.0.1:4000/docs-json' },
          { name: 'files', document: './openapi.yaml' },
          { name: 'exchange', document: 'http://127.0.0.1:4000/docs-json', credential: 'token-exchange' },
          { name: 'metadata', document: 'http://127.0.0.1:4000/docs-json', baseUrl: 'http://169.254.169.254/' },
          { name: 'bad name!', document: 'http://127.0.0.1:4000/docs-json' },
        ],
      },
      { fixedUpstreams: new Set(), policy, rest },
    );
    const problems = result.ok ? [] : result.problems.map((p) => `${p.where}: ${p.problem}`);
    expect(problems).toEqual([
      'apis[2].credential.audience: is required (no URL to take it from)',
      expect.stringMatching(/^apis\[4\]\.name: must be 1 to 64 letters/),
      'apis[0].name: "petstore" is an API of the rest option',
      'apis[1].document: must be an http(s) URL at run time (an admin API does not read the host’s files)',
      'apis[2].credential: only the host’s own credentials (service) can be given at run time',
      'apis[3].baseUrl: 169.254.169.254 is a cloud metadata address, which a run-time upstream or API may not reach',
    ]);
  });

  it('takes a valid API, and refuses APIs on a host without the REST bridge', async () => {
    const api = { name: 'billing', document: 'http://127.0.0.1:4000/docs-json', prefix: 'billing_' };
    expect(
      (await validateDocument({ upstreams: [], apis: [api] }, { fixedUpstreams: new Set(), policy, rest })).ok,
    ).toBe(true);
    const without = await validateDocument({ upstreams: [], apis: [api] }, { fixedUpstreams: new Set(), policy });
    expect(without.ok ? [] : without.problems.map((p) => p.where)).toEqual(['apis']);
  });
});
