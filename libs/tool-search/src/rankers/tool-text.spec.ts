import { splitWords, stem, tokenize, tokenizeIdentifier, toolFields, toolText } from './tool-text';

describe('splitWords', () => {
  it.each([
    ['camelCase', 'createPullRequest', ['create', 'pull', 'request']],
    ['PascalCase', 'CreatePullRequest', ['create', 'pull', 'request']],
    ['snake_case', 'create_pull_request', ['create', 'pull', 'request']],
    ['kebab-case', 'create-pull-request', ['create', 'pull', 'request']],
    ['a dotted name', 'jira.issue.transition', ['jira', 'issue', 'transition']],
    ['a namespaced name', 'github__create_issue', ['github', 'create', 'issue']],
    ['an acronym before a word', 'parseHTTPHeaders2', ['parse', 'http', 'headers', '2']],
    ['a plural acronym', 'listOpenPRs', ['list', 'open', 'pr']],
    ['prose', "The user's open tickets, sorted!", ['the', 'user', 'open', 'tickets', 'sorted']],
  ])('splits %s', (_case, text, words) => {
    expect(splitWords(text)).toEqual(words);
  });

  it('drops single letters but keeps numbers', () => {
    expect(splitWords('a b 7 x-ray')).toEqual(['7', 'ray']);
  });
});

describe('stem', () => {
  it.each([
    ['tickets', 'ticket'],
    ['closing', 'close'],
    ['closed', 'close'],
    ['closes', 'close'],
    ['entries', 'entry'],
    ['shipped', 'ship'],
    ['billing', 'bill'],
    ['cancelled', 'cancel'],
    ['payments', 'payment'],
    ['invoices', 'invoicing'],
  ])('makes "%s" meet "%s"', (inflected, base) => {
    expect(stem(inflected)).toBe(stem(base));
  });

  it.each(['status', 'access', 'analysis', 'string', 'need', 'v2'])('leaves "%s" as it is', (word) => {
    expect(stem(word)).toBe(word);
  });

  it('keeps apart words that only look alike', () => {
    expect(stem('string')).not.toBe(stem('str'));
    expect(stem('address')).not.toBe(stem('add'));
    expect(stem('user')).not.toBe(stem('use'));
  });
});

describe('tokenize', () => {
  it('drops stop words and stems the rest', () => {
    expect(tokenize('Close all of the open tickets for me, please')).toEqual(['clos', 'open', 'ticket']);
  });

  it('keeps the verbs tool names are made of', () => {
    expect(tokenize('get list send create delete')).toEqual(['get', 'list', 'send', 'creat', 'delet']);
  });

  it('reads a name written as one word in prose as the tool names spell it', () => {
    expect(tokenize('GitHub')).toEqual(tokenizeIdentifier('github'));
    expect(tokenize('PagerDuty incidents')).toEqual(tokenizeIdentifier('pagerduty_incidents'));
    expect(tokenize('OAuth')).toEqual(['oauth']);
  });

  it('yields the parts and the whole of letters with digits', () => {
    expect(tokenize('Amazon S3')).toEqual(['amazon', '3', 's3']);
    expect(tokenize('EC2')).toEqual(tokenizeIdentifier('ec2'));
  });

  it('splits a camelCase identifier in a query as it does in a tool name', () => {
    expect(tokenize('createIssue')).toEqual(tokenizeIdentifier('createIssue'));
    expect(tokenize('createIssue')).toEqual(['creat', 'issu']);
  });

  it('returns nothing for an empty text or stop words only', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  --  ')).toEqual([]);
    expect(tokenize('what is it that you can do')).toEqual([]);
  });
});

describe('tokenizeIdentifier', () => {
  it.each([
    ['github__create_issue', ['github', 'creat', 'issu']],
    ['jira.issue.transition', ['jira', 'issu', 'transition']],
    ['zendesk-close-tickets', ['zendesk', 'clos', 'ticket']],
    ['hubspotCreateContact', ['hubspot', 'creat', 'contact']],
  ])('reads %s word by word', (name, tokens) => {
    expect(tokenizeIdentifier(name)).toEqual(tokens);
  });

  it('adds the whole of a PascalCase name to its words, so a brand still matches', () => {
    expect(tokenizeIdentifier('HubSpotSync')).toEqual(['hub', 'spot', 'sync', 'hubspotsync']);
    expect(tokenizeIdentifier('GitHub')).toEqual(['git', 'hub', 'github']);
  });
});

describe('toolFields', () => {
  const tool = {
    name: 'shipstation_create_shipment',
    title: 'Create shipment',
    description: 'Books a parcel with the carrier.',
    inputSchema: {
      type: 'object',
      properties: {
        trackingNumber: { type: 'string', description: 'Carrier tracking code' },
        service: { type: 'string', enum: ['ground', 'overnight', 42] },
        parcels: {
          type: 'array',
          items: { type: 'object', properties: { weight_kg: { type: 'number', title: 'Weight' } } },
        },
        destination: {
          anyOf: [{ type: 'object', properties: { postalCode: { type: 'string' } } }, { type: 'string' }],
        },
      },
    },
  };

  it('tokenizes name, title and description apart', () => {
    const fields = toolFields(tool);
    expect(fields.name).toEqual(['shipstation', 'creat', 'ship']);
    expect(fields.title).toEqual(['creat', 'ship']);
    expect(fields.description).toEqual(['book', 'parcel', 'carrier']);
  });

  it('reads property names from nested objects, array items and unions, depth first', () => {
    expect(toolFields(tool).propertyNames).toEqual([
      'track',
      'number',
      'servic',
      'parcel',
      'weight',
      'kg',
      'destination',
      'postal',
      'cod',
    ]);
  });

  it("reads the properties' descriptions, titles and string enum values", () => {
    expect(toolFields(tool).propertyDescriptions).toEqual(['carrier', 'track', 'cod', 'ground', 'overnight', 'weight']);
  });

  it('copes with a tool that has nothing but a name', () => {
    expect(toolFields({ name: 'ping' })).toEqual({
      name: ['ping'],
      title: [],
      description: [],
      propertyNames: [],
      propertyDescriptions: [],
    });
  });

  it('stops at a schema nested too deep instead of walking it for ever', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 50; depth++) schema = { type: 'object', properties: { [`level${depth}`]: schema } };
    const names = toolFields({ name: 'deep', inputSchema: schema }).propertyNames;
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThan(30);
  });
});

describe('toolText', () => {
  it('writes the name as words, then title, description and one line per property', () => {
    expect(
      toolText({
        name: 'github__create_issue',
        title: 'Create issue',
        description: 'Opens an issue.',
        inputSchema: { properties: { repoName: { description: 'Repository, as owner/name' }, body: {} } },
      }),
    ).toBe('github create issue\nCreate issue\nOpens an issue.\nrepo name: Repository, as owner/name\nbody');
  });
});
