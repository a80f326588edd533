import { validateDocument } from './document.validator';

const policy = { allowHosts: ['127.0.0.1'], allowPrivateNetworks: false, ownPort: () => 3000 };
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
      new Set(['crm']),
      policy,
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => `${p.where}: ${p.problem}`);
    expect(problems).toEqual([
      'colour: is not a field of the document',
      'upstreams[1].name: "wiki" names another upstream too',
      expect.stringMatching(/^upstreams\[1\]\.prefix: /),
      'upstreams[2].transport.type: only http upstreams can be added at run time',
      'upstreams[3].name: "crm" is an upstream of the gateway option',
      expect.stringMatching(
        /^upstreams\[4\]\.transport\.url: "169\.254\.169\.254" is \(or resolves to\) 169\.254\.169\.254/,
      ),
    ]);
  });

  it('takes a valid document', async () => {
    expect(await validateDocument({ version: 3, upstreams: [http('wiki')] }, new Set(), policy)).toEqual({
      ok: true,
      upstreams: [http('wiki')],
    });
  });
});
