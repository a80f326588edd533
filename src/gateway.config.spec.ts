import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayOptions } from './gateway.config';
import { validateEnvironment } from './host.config';

const dir = mkdtempSync(join(tmpdir(), 'desk-gateway-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const options = (path: string | undefined, variables: NodeJS.ProcessEnv = {}) =>
  gatewayOptions(validateEnvironment(path ? { GATEWAY_UPSTREAMS_FILE: path } : {}), variables);

describe('the desk gateway configuration (GATEWAY_UPSTREAMS_FILE)', () => {
  it('federates nothing without the variable', () => {
    expect(options(undefined)).toEqual({});
  });

  it('reads the shipped example', () => {
    const { upstreams } = options('config/upstreams.example.json');
    expect(upstreams?.map(({ name }) => name)).toEqual(['everything']);
  });

  it('replaces ${NAME} with the environment, everywhere in the file', () => {
    const path = file(
      'wiki.json',
      JSON.stringify({
        upstreams: [{ name: 'wiki', transport: { type: 'http', url: '${WIKI_URL}/mcp', bearer: '${WIKI_TOKEN}' } }],
      }),
    );
    const { upstreams } = options(path, { WIKI_URL: 'https://wiki.example', WIKI_TOKEN: 's3cret' });
    expect(upstreams?.[0].transport).toEqual({ type: 'http', url: 'https://wiki.example/mcp', bearer: 's3cret' });
  });

  it('names every variable the file uses that is not set', () => {
    const path = file('unset.json', JSON.stringify({ upstreams: [{ name: 'w', transport: { bearer: '${A} ${B}' } }] }));
    expect(() => options(path, { A: '' })).toThrow(/uses \$\{A\}, \$\{B\}: set these variables/);
  });

  it('says what is wrong with a file that is not JSON or has no upstreams', () => {
    expect(() => options(file('bad.json', '{ upstreams: '))).toThrow(/bad\.json cannot be read as JSON/);
    expect(() => options(file('empty.json', '{}'))).toThrow(/must hold \{ "upstreams": \[ … \] \}/);
    expect(() => options(join(dir, 'missing.json'))).toThrow(/missing\.json cannot be read as JSON: ENOENT/);
  });
});
