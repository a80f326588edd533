import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnvironment } from './host.config';
import { restApisOptions } from './rest-apis.config';

const dir = mkdtempSync(join(tmpdir(), 'desk-rest-apis-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const options = (path: string | undefined, variables: NodeJS.ProcessEnv = {}) =>
  restApisOptions(validateEnvironment(path ? { REST_APIS_FILE: path } : {}), variables);

describe('the desk external REST APIs (REST_APIS_FILE)', () => {
  it('exposes no API without the variable', () => {
    expect(options(undefined)).toEqual([]);
  });

  it('reads the shipped example: the Swagger Petstore, its POST confirmed by a person', () => {
    const [petstore, ...others] = options('config/rest-apis.example.json');
    expect(others).toEqual([]);
    expect(petstore).toMatchObject({
      name: 'petstore',
      document: 'https://petstore3.swagger.io/api/v3/openapi.json',
      confirm: { ask: { operationIds: ['addPet'] } },
    });
  });

  it('replaces ${NAME} with the environment, and names the variables that are not set', () => {
    const path = file(
      'crm.json',
      JSON.stringify({
        apis: [{ name: 'crm', document: '${CRM_URL}/openapi.json', credentials: { bearer: '${CRM_TOKEN}' } }],
      }),
    );
    expect(options(path, { CRM_URL: 'https://crm.example', CRM_TOKEN: 't0k' })).toEqual([
      { name: 'crm', document: 'https://crm.example/openapi.json', credentials: { bearer: 't0k' } },
    ]);
    expect(() => options(path, { CRM_URL: 'https://crm.example' })).toThrow(
      /REST_APIS_FILE=.*crm\.json uses \$\{CRM_TOKEN\}: set this variable/,
    );
  });

  it('says what is wrong with a file that is not JSON or holds no list of APIs', () => {
    expect(() => options(file('bad.json', '{ apis: '))).toThrow(/REST_APIS_FILE=.*bad\.json cannot be read as JSON/);
    expect(() => options(file('upstreams.json', '{ "upstreams": [] }'))).toThrow(
      /must hold \{ "apis": \[ … \] \} \(see docs\/rest-bridge\.md\)/,
    );
  });
});
