import { resolveRestApis } from './rest-api.options';
import { DEFAULT_REST_CONFIRM } from './rest-confirm.options';

interface Reported {
  option: string;
  problem: string;
  fix: string;
}

/**
 * Resolves `rest.apis` with a collecting report. Every report must say how to fix it, so that
 * is checked here for every case rather than in one test that could miss a branch.
 */
function resolve(value: unknown) {
  const problems: Reported[] = [];
  const apis = resolveRestApis(value, (option, problem, fix) => problems.push({ option, problem, fix }));
  for (const reported of problems) expect(reported.fix.trim()).not.toBe('');
  return { apis, problems, options: problems.map((p) => p.option) };
}

const petstore = { name: 'petstore', document: './openapi/petstore.yaml' };

/** One API with the given credentials, and what was reported about it. */
const withCredentials = (credentials: unknown) => resolve([{ ...petstore, credentials }]);

describe('resolveRestApis', () => {
  it('resolves no option to no API', () => {
    expect(resolve(undefined)).toEqual({ apis: [], problems: [], options: [] });
  });

  it.each([
    ['an object', { name: 'petstore' }],
    ['a string', 'petstore'],
    ['null', null],
  ])('reports rest.apis given as %s', (_what, value) => {
    const { apis, problems } = resolve(value);
    expect(apis).toEqual([]);
    expect(problems).toEqual([{ option: 'rest.apis', problem: 'must be an array', fix: expect.any(String) }]);
  });

  it('fills in the defaults of an API given only its name and document', () => {
    const { apis, problems } = resolve([petstore]);
    expect(problems).toEqual([]);
    expect(apis).toEqual([
      {
        name: 'petstore',
        document: './openapi/petstore.yaml',
        baseUrl: undefined,
        credentials: undefined,
        operations: undefined,
        exclude: undefined,
        prefix: '',
        scopes: [],
        roles: [],
        timeoutMs: 30_000,
        maxResponseBytes: 5 * 1024 * 1024,
        confirm: DEFAULT_REST_CONFIRM,
        credential: { mode: 'service' },
        where: 'rest.apis[0]',
      },
    ]);
  });

  it('keeps every option of a valid API, the document given as an object', () => {
    const document = { openapi: '3.1.0', info: { title: 'Petstore', version: '1' }, paths: {} };
    const given = {
      name: 'pet-store_2',
      document,
      baseUrl: 'https://petstore.example.com/api/v3',
      credentials: { apiKey: { in: 'header', name: 'api_key', value: 'k-1' }, headers: { 'X-Tenant': 'acme' } },
      operations: { tags: ['pet'], paths: ['/pet/**'] },
      exclude: { operationIds: ['deletePet'] },
      prefix: 'petstore.',
      scopes: ['pets:read'],
      roles: ['vet', 'admin'],
      timeoutMs: 600_000,
      maxResponseBytes: 1,
    };
    const { apis, problems } = resolve([given]);
    expect(problems).toEqual([]);
    expect(apis).toEqual([
      { ...given, confirm: DEFAULT_REST_CONFIRM, credential: { mode: 'service' }, where: 'rest.apis[0]' },
    ]);
  });

  it('accepts an http base URL and a document URL', () => {
    const { apis, problems } = resolve([
      { name: 'local', document: 'http://127.0.0.1:8080/openapi.json', baseUrl: 'http://127.0.0.1:8080' },
    ]);
    expect(problems).toEqual([]);
    expect(apis.map((api) => api.baseUrl)).toEqual(['http://127.0.0.1:8080']);
  });

  it('numbers each API in where', () => {
    const { apis } = resolve([petstore, { name: 'billing', document: './billing.json' }]);
    expect(apis.map((api) => [api.name, api.where])).toEqual([
      ['petstore', 'rest.apis[0]'],
      ['billing', 'rest.apis[1]'],
    ]);
  });

  it.each([
    ['a number', 7],
    ['null', null],
    ['an array', [petstore]],
  ])('reports an API given as %s at its index', (_what, given) => {
    const { apis, options } = resolve([petstore, given]);
    expect(options).toEqual(['rest.apis[1]']);
    expect(apis.map((api) => api.name)).toEqual(['petstore']);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['with a space', 'pet store'],
    ['with a dot', 'pet.store'],
    ['over 64 characters', 'a'.repeat(65)],
    ['not a string', 42],
  ])('reports a name %s', (_what, name) => {
    const { apis, problems } = resolve([{ ...petstore, name }]);
    expect(apis).toEqual([]);
    expect(problems).toEqual([
      { option: 'rest.apis[0].name', problem: expect.stringContaining('1 to 64'), fix: expect.any(String) },
    ]);
  });

  it('accepts a name of exactly 64 characters', () => {
    expect(resolve([{ ...petstore, name: 'a'.repeat(64) }]).problems).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['null', null],
    ['an array', [{ openapi: '3.1.0' }]],
    ['a number', 3],
  ])('reports a document %s', (_what, document) => {
    const { apis, options } = resolve([{ name: 'petstore', document }]);
    expect(apis).toEqual([]);
    expect(options).toEqual(['rest.apis[0].document']);
  });

  it.each([
    ['a relative URL', '/api/v3'],
    ['an ftp URL', 'ftp://files.example.com/api'],
    ['a file URL', 'file:///etc/passwd'],
    ['not a URL', 'petstore'],
    ['not a string', 8080],
  ])('reports a base URL that is %s', (_what, baseUrl) => {
    const { apis, problems } = resolve([{ ...petstore, baseUrl }]);
    expect(apis).toEqual([]);
    expect(problems).toEqual([
      {
        option: 'rest.apis[0].baseUrl',
        problem: `must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
        fix: expect.any(String),
      },
    ]);
  });

  it.each([
    ['with a space', 'pet store_'],
    ['with a slash', 'pet/'],
    ['over 64 characters', 'p'.repeat(65)],
    ['not a string', 1],
  ])('reports a prefix %s', (_what, prefix) => {
    const { apis, options } = resolve([{ ...petstore, prefix }]);
    expect(apis).toEqual([]);
    expect(options).toEqual(['rest.apis[0].prefix']);
  });

  it.each([
    ['scopes', 'a string', 'pets:read'],
    ['scopes', 'a number in the list', ['pets:read', 1]],
    ['scopes', 'an empty string in the list', ['']],
    ['roles', 'an object', { vet: true }],
    ['roles', 'a number in the list', [7]],
  ])('reports %s given as %s', (key, _what, value) => {
    const { apis, problems } = resolve([{ ...petstore, [key]: value }]);
    expect(apis).toEqual([]);
    expect(problems).toEqual([
      {
        option: `rest.apis[0].${key}`,
        problem: 'must be an array of non-empty strings',
        fix: expect.stringContaining(`${key}:`),
      },
    ]);
  });

  it.each([
    ['timeoutMs', 0],
    ['timeoutMs', 600_001],
    ['timeoutMs', 1.5],
    ['timeoutMs', '30000'],
    ['maxResponseBytes', 0],
    ['maxResponseBytes', -1],
  ])('reports %s: %p', (key, value) => {
    const { apis, options } = resolve([{ ...petstore, [key]: value }]);
    expect(apis).toEqual([]);
    expect(options).toEqual([`rest.apis[0].${key}`]);
  });

  it('reports an unknown key and lists the known ones in the fix', () => {
    const { apis, problems } = resolve([{ ...petstore, basePath: '/v3' }]);
    expect(apis).toEqual([]);
    expect(problems).toEqual([
      {
        option: 'rest.apis[0].basePath',
        problem: 'is not a known option',
        fix: expect.stringContaining('baseUrl'),
      },
    ]);
  });

  it('reports every problem of an API at once', () => {
    const { options } = resolve([{ name: 'pet store', document: '', baseUrl: 'nowhere', prefix: '?', scopes: 'x' }]);
    expect(options.sort()).toEqual(
      [
        'rest.apis[0].name',
        'rest.apis[0].document',
        'rest.apis[0].baseUrl',
        'rest.apis[0].prefix',
        'rest.apis[0].scopes',
      ].sort(),
    );
  });

  it('reports a name used twice at the second API and keeps the first', () => {
    const { apis, problems } = resolve([petstore, { name: 'petstore', document: './other.json' }]);
    expect(problems).toEqual([
      {
        option: 'rest.apis[1].name',
        problem: '"petstore" names another API too',
        fix: expect.any(String),
      },
    ]);
    expect(apis.map((api) => [api.name, api.document])).toEqual([['petstore', './openapi/petstore.yaml']]);
  });

  it('reports two APIs without a valid name once each, as invalid, not as one name used twice', () => {
    const { options } = resolve([{ document: './a.json' }, { document: './b.json' }]);
    expect(options).toEqual(['rest.apis[0].name', 'rest.apis[1].name']);
  });

  it('keeps its own copy of the scopes and roles it was given', () => {
    const scopes = ['pets'];
    const [api] = resolve([{ ...petstore, scopes }]).apis;
    scopes.push('admin');
    expect(api.scopes).toEqual(['pets']);
  });

  it('leaves out each API with a problem and keeps the others', () => {
    const { apis, options } = resolve([
      { name: 'first', document: './first.json' },
      { name: 'second', document: './second.json', baseUrl: 'not a url' },
      { name: 'third', document: './third.json' },
      { name: 'fourth', document: './fourth.json', credentials: { bearer: '' } },
    ]);
    expect(options).toEqual(['rest.apis[1].baseUrl', 'rest.apis[3].credentials.bearer']);
    expect(apis.map((api) => [api.name, api.where])).toEqual([
      ['first', 'rest.apis[0]'],
      ['third', 'rest.apis[2]'],
    ]);
  });

  describe('operations and exclude (route rules)', () => {
    it('copies the lists it is given', () => {
      const tags = ['pet'];
      const { apis } = resolve([{ ...petstore, operations: { tags }, exclude: { paths: ['/store/**'] } }]);
      expect(apis[0].operations).toEqual({ tags: ['pet'] });
      expect(apis[0].operations?.tags).not.toBe(tags);
      expect(apis[0].exclude).toEqual({ paths: ['/store/**'] });
    });

    it.each([
      ['operations', ['pet'], 'rest.apis[0].operations'],
      ['operations', { verbs: ['get'] }, 'rest.apis[0].operations.verbs'],
      ['operations', { tags: 'pet' }, 'rest.apis[0].operations.tags'],
      ['exclude', { paths: [''] }, 'rest.apis[0].exclude.paths'],
      ['exclude', { operationIds: [1] }, 'rest.apis[0].exclude.operationIds'],
      ['exclude', null, 'rest.apis[0].exclude'],
    ])('reports %s: %p at %s', (key, value, option) => {
      const { apis, options } = resolve([{ ...petstore, [key]: value }]);
      expect(apis).toEqual([]);
      expect(options).toEqual([option]);
    });
  });

  describe('credentials', () => {
    it.each([
      ['a bearer token', { bearer: 'tok-1' }],
      ['basic credentials with an empty password', { basic: { username: 'svc', password: '' } }],
      ['an API key in the query', { apiKey: { in: 'query', name: 'api_key', value: 'k-1' } }],
      ['extra headers', { headers: { 'X-Tenant': 'acme', "x-odd!#$%&'*+.^_`|~": 'v' } }],
      [
        'a bearer token, an API key and headers',
        { bearer: 't', apiKey: { in: 'header', name: 'k', value: 'v' }, headers: { 'x-tenant': 'acme' } },
      ],
      ['no kind at all', {}],
    ])('accepts %s as given', (_what, credentials) => {
      const { apis, problems } = withCredentials(credentials);
      expect(problems).toEqual([]);
      expect(apis[0].credentials).toEqual(credentials);
    });

    it.each([
      ['a string', 'tok-1'],
      ['null', null],
      ['an array', [{ bearer: 'tok-1' }]],
    ])('reports credentials given as %s', (_what, credentials) => {
      const { apis, problems } = withCredentials(credentials);
      expect(apis).toEqual([]);
      expect(problems).toEqual([
        { option: 'rest.apis[0].credentials', problem: 'must be an object', fix: expect.any(String) },
      ]);
    });

    it('reports an unknown kind and names the known kinds', () => {
      const { apis, problems } = withCredentials({ oauth2: { clientId: 'c' } });
      expect(apis).toEqual([]);
      expect(problems).toEqual([
        {
          option: 'rest.apis[0].credentials.oauth2',
          problem: 'is not a known option',
          fix: expect.stringMatching(/kinds of credentials are: headers, bearer, basic, apiKey/),
        },
      ]);
    });

    it('reports a bearer given but unset, pointing at the environment variable', () => {
      // What `bearer: process.env.UNSET` gives: the key is there, its value is not.
      const { apis, problems } = withCredentials({ bearer: undefined });
      expect(apis).toEqual([]);
      expect(problems).toEqual([
        {
          option: 'rest.apis[0].credentials.bearer',
          problem: 'must be a non-empty string',
          fix: expect.stringContaining('environment variable'),
        },
      ]);
    });

    it.each([
      ['empty', ''],
      ['a number', 123],
    ])('reports a bearer token that is %s', (_what, bearer) => {
      const { apis, options } = withCredentials({ bearer });
      expect(apis).toEqual([]);
      expect(options).toEqual(['rest.apis[0].credentials.bearer']);
    });

    it('reports headers that are not an object', () => {
      const { options } = withCredentials({ headers: ['x-tenant: acme'] });
      expect(options).toEqual(['rest.apis[0].credentials.headers']);
    });

    it('reports a header name HTTP does not allow, naming it', () => {
      const { apis, problems } = withCredentials({ headers: { 'x tenant': 'acme' } });
      expect(apis).toEqual([]);
      expect(problems).toEqual([
        {
          option: 'rest.apis[0].credentials.headers',
          problem: '"x tenant" is not a valid HTTP header name',
          fix: expect.any(String),
        },
      ]);
    });

    it('reports a header whose value is unset at the header', () => {
      const { problems } = withCredentials({ headers: { 'x-tenant': undefined } });
      expect(problems).toEqual([
        {
          option: 'rest.apis[0].credentials.headers.x-tenant',
          problem: 'must be a non-empty string',
          fix: expect.stringContaining('environment variable'),
        },
      ]);
    });

    it.each([
      ['a string', 'svc:secret', ['rest.apis[0].credentials.basic']],
      ['null', null, ['rest.apis[0].credentials.basic']],
      ['without a username', { password: 'secret' }, ['rest.apis[0].credentials.basic.username']],
      ['with an empty username', { username: '', password: 'secret' }, ['rest.apis[0].credentials.basic.username']],
      [
        'with a password not a string',
        { username: 'svc', password: 1234 },
        ['rest.apis[0].credentials.basic.password'],
      ],
      ['with an unset password', { username: 'svc', password: undefined }, ['rest.apis[0].credentials.basic.password']],
      ['with neither', {}, ['rest.apis[0].credentials.basic.username', 'rest.apis[0].credentials.basic.password']],
    ])('reports basic credentials %s', (_what, basic, expected) => {
      const { apis, options } = withCredentials({ basic });
      expect(apis).toEqual([]);
      expect(options).toEqual(expected);
    });

    it.each([
      ['a string', 'k-1', ['rest.apis[0].credentials.apiKey']],
      ['null', null, ['rest.apis[0].credentials.apiKey']],
      ['in a cookie', { in: 'cookie', name: 'k', value: 'v' }, ['rest.apis[0].credentials.apiKey.in']],
      ['without in', { name: 'k', value: 'v' }, ['rest.apis[0].credentials.apiKey.in']],
      ['named with a space', { in: 'header', name: 'api key', value: 'v' }, ['rest.apis[0].credentials.apiKey.name']],
      ['with an empty name', { in: 'query', name: '', value: 'v' }, ['rest.apis[0].credentials.apiKey.name']],
      ['without a value', { in: 'header', name: 'x-api-key' }, ['rest.apis[0].credentials.apiKey.value']],
      [
        'with an empty value',
        { in: 'header', name: 'x-api-key', value: '' },
        ['rest.apis[0].credentials.apiKey.value'],
      ],
      [
        'with nothing right',
        { in: 'body', name: 3, value: null },
        [
          'rest.apis[0].credentials.apiKey.in',
          'rest.apis[0].credentials.apiKey.name',
          'rest.apis[0].credentials.apiKey.value',
        ],
      ],
    ])('reports an API key %s', (_what, apiKey, expected) => {
      const { apis, options } = withCredentials({ apiKey });
      expect(apis).toEqual([]);
      expect(options).toEqual(expected);
    });

    it('says which values of in are allowed and what was given', () => {
      const { problems } = withCredentials({ apiKey: { in: 'cookie', name: 'k', value: 'v' } });
      expect(problems[0].problem).toBe(`must be 'header' or 'query', got "cookie"`);
    });

    it('points an unset API key value at the environment variable', () => {
      const { problems } = withCredentials({ apiKey: { in: 'header', name: 'x-api-key', value: undefined } });
      expect(problems[0].fix).toContain('environment variable');
    });

    it('reports bearer and basic together, as both set Authorization', () => {
      const { apis, problems } = withCredentials({ bearer: 'tok-1', basic: { username: 'svc', password: 'pw' } });
      expect(apis).toEqual([]);
      expect(problems).toEqual([
        {
          option: 'rest.apis[0].credentials',
          problem: 'has both bearer and basic, which both set Authorization',
          fix: expect.any(String),
        },
      ]);
    });
  });
});
