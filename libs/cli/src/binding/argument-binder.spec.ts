import type { JsonSchemaObject, McpToolCliOptions } from '#libs/core';
import { CliUsageError } from '../errors/cli-usage.error';
import { CLOSE_TICKET, CREATE_TICKET, SEARCH_TICKETS, TAG_TICKETS } from '../testing/desk-tools';
import { bindArguments, type StdinReader } from './argument-binder';
import { cliOptionsOf } from './cli-options';

const noStdin: StdinReader = () => Promise.reject(new Error('stdin must not be read'));

function bind(schema: JsonSchemaObject, argv: string[], cli?: McpToolCliOptions, stdin = noStdin) {
  return bindArguments(cliOptionsOf(schema, cli), argv, stdin);
}

/** The messages of the usage error `argv` gives. */
async function problems(schema: JsonSchemaObject, argv: string[], cli?: McpToolCliOptions, stdin = noStdin) {
  const error = await bind(schema, argv, cli, stdin).then(
    (args) => {
      throw new Error(`bound without error: ${JSON.stringify(args)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliUsageError);
  return (error as CliUsageError).message.split('\n');
}

describe('bindArguments', () => {
  describe('properties named like members of every object', () => {
    const NAMED = JSON.parse(
      '{"type":"object","properties":{"toString":{"type":"string"},"__proto__":{"type":"string"}},"required":["toString"]}',
    ) as JsonSchemaObject;

    it("reports a required one that is missing, rather than finding Object's method", async () => {
      expect(await problems(NAMED, [])).toEqual(['--to-string: required; expected a string']);
    });

    it('binds them as properties of the arguments, never as their prototype', async () => {
      const args = await bind(NAMED, ['--to-string', 'x', '--proto', 'y']);
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      expect(Object.entries(args)).toEqual([
        ['toString', 'x'],
        ['__proto__', 'y'],
      ]);
    });
  });

  describe('options', () => {
    it('binds --name value and --name=value, typed by the schema', async () => {
      await expect(bind(SEARCH_TICKETS, ['--status', 'open', '--priority=high', '--limit', '5'])).resolves.toEqual({
        status: 'open',
        priority: 'high',
        limit: 5,
      });
    });

    it('answers to the kebab-case name and the property’s own spelling, ignoring case', async () => {
      await expect(bind(SEARCH_TICKETS, ['--customer-id', 'C-1001'])).resolves.toEqual({ customerId: 'C-1001' });
      await expect(bind(SEARCH_TICKETS, ['--customerId', 'C-1001'])).resolves.toEqual({ customerId: 'C-1001' });
      await expect(bind(SEARCH_TICKETS, ['--CUSTOMER-ID=C-1001', '--Status', 'open'])).resolves.toEqual({
        customerId: 'C-1001',
        status: 'open',
      });
      await expect(
        bind({ type: 'object', properties: { ticket_id: { type: 'string' } } }, ['--ticket_id', 'T-1']),
      ).resolves.toEqual({
        ticket_id: 'T-1',
      });
    });

    it('takes a value that looks like an option only with =, and a negative number either way', async () => {
      await expect(bind(SEARCH_TICKETS, ['--assignee=--nobody'])).resolves.toEqual({ assignee: '--nobody' });
      await expect(bind(TAG_TICKETS, ['--ticket-ids', 'T-1', '--ratio', '-0.5', '--weights', '-3'])).resolves.toEqual({
        ticketIds: ['T-1'],
        ratio: -0.5,
        weights: [-3],
      });
    });

    it('answers to aliases, short and long, and to a CLI name in place of the kebab-case name', async () => {
      const cli: McpToolCliOptions = {
        aliases: { status: ['-s', '--st'], limit: '-n' },
        names: { customerId: 'customer' },
      };
      await expect(bind(SEARCH_TICKETS, ['-s', 'open', '-n=3', '--customer', 'C-1001'], cli)).resolves.toEqual({
        status: 'open',
        limit: 3,
        customerId: 'C-1001',
      });
      await expect(bind(SEARCH_TICKETS, ['--ST', 'pending'], cli)).resolves.toEqual({ status: 'pending' });
      expect(await problems(SEARCH_TICKETS, ['--customer-id', 'C-1001', '-S', 'open'], cli)).toEqual([
        '--customer-id: unknown option',
        '-S: unknown option; did you mean -s?',
      ]);
    });

    it('refuses a value given twice, by whichever names', async () => {
      const cli = { aliases: { status: '-s' } };
      expect(await problems(SEARCH_TICKETS, ['-s', 'open', '--status', 'closed'], cli)).toEqual([
        '--status: expected one value, also given as -s (given more than once)',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--limit', '1', '--limit', '2'])).toEqual([
        '--limit: expected one value (given more than once)',
      ]);
    });

    it('reports an option without its value', async () => {
      expect(await problems(SEARCH_TICKETS, ['--status', 'open', '--limit'])).toEqual([
        '--limit: expected an integer (no value given)',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--assignee', '--limit', '3'])).toEqual([
        '--assignee: expected a string (no value given)',
      ]);
    });
  });

  describe('unknown options', () => {
    it('refuses them with the nearest option as a suggestion', async () => {
      expect(await problems(SEARCH_TICKETS, ['--stauts', 'open'])).toEqual([
        '--stauts: unknown option; did you mean --status?',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--prio', 'high'])).toEqual([
        '--prio: unknown option; did you mean --priority?',
      ]);
      expect(await problems(TAG_TICKETS, ['--ticket-ids', 'T-1', '--no-notfy'])).toEqual([
        '--no-notfy: unknown option; did you mean --no-notify?',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--jsno', '{}'])).toEqual([
        '--jsno: unknown option; did you mean --json?',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--zzz', 'open'])).toEqual(['--zzz: unknown option']);
    });

    it('does not offer --no- for a property that is not a boolean, nor take the CLI’s own options', async () => {
      expect(await problems(SEARCH_TICKETS, ['--no-status', '--output', 'json'])).toEqual([
        '--no-status: unknown option; did you mean --status?',
        '--output: unknown option',
      ]);
    });

    it('carries the option and what was expected in each problem', async () => {
      const error = (await bind(SEARCH_TICKETS, ['--stauts', 'open', '--limit', 'ten']).catch(
        (e: unknown) => e,
      )) as CliUsageError;
      expect(error.name).toBe('CliUsageError');
      expect(error.problems).toEqual([
        {
          option: '--stauts',
          expected: 'an option of this tool',
          message: '--stauts: unknown option; did you mean --status?',
        },
        {
          option: '--limit',
          expected: 'an integer',
          received: 'ten',
          message: '--limit: expected an integer; got "ten"',
        },
      ]);
    });
  });

  describe('booleans', () => {
    const base = ['--ticket-ids', 'T-1'];

    it('reads --flag as true and --no-flag as false, in every spelling', async () => {
      await expect(bind(TAG_TICKETS, [...base, '--notify', '--no-dry-run'])).resolves.toEqual({
        ticketIds: ['T-1'],
        notify: true,
        dryRun: false,
      });
      await expect(bind(TAG_TICKETS, [...base, '--No-DryRun'])).resolves.toMatchObject({ dryRun: false });
    });

    it('reads --flag=true|false and --flag true|false, and leaves another word to the positionals', async () => {
      await expect(bind(TAG_TICKETS, [...base, '--notify=false', '--dry-run', 'TRUE'])).resolves.toEqual({
        ticketIds: ['T-1'],
        notify: false,
        dryRun: true,
      });
      expect(await problems(TAG_TICKETS, [...base, '--notify', 'yes'])).toEqual([
        '"yes": unexpected argument; options are written --name value',
      ]);
    });

    it('refuses other values, and a value after --no-flag', async () => {
      expect(await problems(TAG_TICKETS, [...base, '--notify=maybe', '--no-dry-run=true'])).toEqual([
        '--notify: expected true or false; got "maybe"',
        '--no-dry-run: expected no value; got "true"',
      ]);
    });
  });

  describe('arrays', () => {
    it('collects repeated options and comma lists, each item typed', async () => {
      await expect(
        bind(TAG_TICKETS, ['--ticket-ids', 'T-1,T-2', '--ticket-ids', 'T-3', '--tags', 'vat', '--weights=1,2']),
      ).resolves.toEqual({ ticketIds: ['T-1', 'T-2', 'T-3'], tags: ['vat'], weights: [1, 2] });
    });

    it('takes a JSON array as written, and an empty value for an empty list', async () => {
      await expect(bind(TAG_TICKETS, ['--ticket-ids', '["T-1,old","T-2"]', '--tags='])).resolves.toEqual({
        ticketIds: ['T-1,old', 'T-2'],
        tags: [],
      });
    });

    it('names the item that is wrong', async () => {
      expect(await problems(TAG_TICKETS, ['--ticket-ids', 'T-1', '--tags', 'vat,refnd', '--weights', '1,x'])).toEqual([
        '--tags: expected one of vat, refund, outage; got "refnd" (did you mean refund?)',
        '--weights: expected an integer; got "x"',
      ]);
    });

    it('reads each item of an array of objects as JSON, a JSON array spread', async () => {
      await expect(
        bind(TAG_TICKETS, [
          '--ticket-ids',
          'T-1',
          '--attachments',
          '{"name":"a.png"}',
          '--attachments',
          '[{"name":"b.png"},{"name":"c.png"}]',
        ]),
      ).resolves.toEqual({
        ticketIds: ['T-1'],
        attachments: [{ name: 'a.png' }, { name: 'b.png' }, { name: 'c.png' }],
      });
      expect(await problems(TAG_TICKETS, ['--ticket-ids', 'T-1', '--attachments', 'a.png'])).toEqual([
        '--attachments: expected a JSON value; got "a.png"',
      ]);
    });
  });

  describe('enums', () => {
    it('lists the allowed values, with a suggestion when one is close', async () => {
      expect(await problems(SEARCH_TICKETS, ['--priority', 'critical', '--status', 'opne'])).toEqual([
        '--priority: expected one of low, normal, high, urgent; got "critical"',
        '--status: expected one of open, pending, closed; got "opne" (did you mean open?)',
      ]);
    });

    it('takes a value differing in case alone for the allowed one', async () => {
      await expect(bind(SEARCH_TICKETS, ['--priority', 'HIGH'])).resolves.toEqual({ priority: 'high' });
    });
  });

  describe('numbers', () => {
    it.each([
      ['12abc', '--limit: expected an integer; got "12abc"'],
      ['1.5', '--limit: expected an integer; got "1.5"'],
      ['', '--limit: expected an integer; got ""'],
      ['0x10', '--limit: expected an integer; got "0x10"'],
      [' 7', '--limit: expected an integer; got " 7"'],
      ['99999999999999999999', '--limit: expected an integer; got "99999999999999999999"'],
    ])('refuses %j for an integer', async (word, message) => {
      expect(await problems(SEARCH_TICKETS, [`--limit=${word}`])).toEqual([message]);
    });

    it.each([
      ['2.5', 2.5],
      ['-1e3', -1000],
      ['.5', 0.5],
      ['+4', 4],
    ])('reads %j as a number', async (word, value) => {
      await expect(bind(TAG_TICKETS, ['--ticket-ids', 'T-1', `--ratio=${word}`])).resolves.toMatchObject({
        ratio: value,
      });
    });

    it.each(['Infinity', 'NaN', '1,5', '1.', 'abc'])('refuses %j for a number', async (word) => {
      expect(await problems(TAG_TICKETS, ['--ticket-ids', 'T-1', `--ratio=${word}`])).toEqual([
        `--ratio: expected a number; got ${JSON.stringify(word)}`,
      ]);
    });
  });

  describe('composed types and JSON values', () => {
    const base = ['--ticket-ids', 'T-1'];

    it('reads null where the schema allows it, a string otherwise', async () => {
      await expect(bind(TAG_TICKETS, [...base, '--assignee', 'null'])).resolves.toMatchObject({ assignee: null });
      await expect(bind(TAG_TICKETS, [...base, '--assignee', 'maria.lopez'])).resolves.toMatchObject({
        assignee: 'maria.lopez',
      });
    });

    it('reads an integer-or-"all" union by its members', async () => {
      await expect(bind(TAG_TICKETS, [...base, '--limit', 'all'])).resolves.toMatchObject({ limit: 'all' });
      await expect(bind(TAG_TICKETS, [...base, '--limit', '7'])).resolves.toMatchObject({ limit: 7 });
      expect(await problems(TAG_TICKETS, [...base, '--limit', 'some'])).toEqual([
        '--limit: expected one of all or an integer; got "some"',
      ]);
    });

    it('reads objects as JSON, and an untyped value as JSON when it parses, as the word otherwise', async () => {
      await expect(
        bind(TAG_TICKETS, [...base, '--filter', '{"status":"open"}', '--note', '12']),
      ).resolves.toMatchObject({
        filter: { status: 'open' },
        note: 12,
      });
      await expect(bind(TAG_TICKETS, [...base, '--note', 'call back'])).resolves.toMatchObject({ note: 'call back' });
      expect(await problems(TAG_TICKETS, [...base, '--filter', '{status:open}'])).toEqual([
        '--filter: expected a JSON value; got "{status:open}"',
      ]);
    });
  });

  describe('positional arguments', () => {
    const close: McpToolCliOptions = { positional: ['ticketId', 'resolution'] };

    it('fills the declared properties in order', async () => {
      await expect(bind(CLOSE_TICKET, ['T-2001', 'Refunded the invoice'], close)).resolves.toEqual({
        ticketId: 'T-2001',
        resolution: 'Refunded the invoice',
      });
    });

    it('skips a positional property given as an option', async () => {
      await expect(bind(CLOSE_TICKET, ['--ticket-id', 'T-2001', 'Refunded'], close)).resolves.toEqual({
        ticketId: 'T-2001',
        resolution: 'Refunded',
      });
      await expect(bind(CLOSE_TICKET, ['--resolution=Refunded', 'T-2001'], close)).resolves.toEqual({
        ticketId: 'T-2001',
        resolution: 'Refunded',
      });
    });

    it('takes every word after -- as positional, options or not', async () => {
      await expect(bind(CLOSE_TICKET, ['T-2001', '--', '--force was wrong'], close)).resolves.toEqual({
        ticketId: 'T-2001',
        resolution: '--force was wrong',
      });
    });

    it('gives the remaining words to an array positional', async () => {
      await expect(
        bind(TAG_TICKETS, ['--tags', 'vat', 'T-1', 'T-2,T-3'], { positional: ['ticketIds'] }),
      ).resolves.toEqual({
        tags: ['vat'],
        ticketIds: ['T-1', 'T-2', 'T-3'],
      });
    });

    it('refuses words no positional property takes', async () => {
      expect(await problems(CLOSE_TICKET, ['T-1', 'Fixed', 'twice'], close)).toEqual([
        '"twice": unexpected argument; the arguments are <ticket-id> <resolution>',
      ]);
      expect(await problems(SEARCH_TICKETS, ['open'])).toEqual([
        '"open": unexpected argument; options are written --name value',
      ]);
    });

    it('reads a positional word by the property’s type, named by its placeholder', async () => {
      expect(await problems(SEARCH_TICKETS, ['lots'], { positional: ['limit'] })).toEqual([
        '<limit>: expected an integer; got "lots"',
      ]);
    });
  });

  describe('--json', () => {
    it('takes the whole argument object, inline', async () => {
      await expect(
        bind(CREATE_TICKET, [
          '--json',
          '{"customerId":"C-1001","subject":"VAT","description":"Wrong VAT rate","priority":"low"}',
        ]),
      ).resolves.toEqual({ customerId: 'C-1001', subject: 'VAT', description: 'Wrong VAT rate', priority: 'low' });
    });

    it('reads it from stdin with --json -, only then', async () => {
      const stdin = jest.fn(() =>
        Promise.resolve('{"customerId":"C-1001","subject":"VAT","description":"x","priority":"low"}\n'),
      );
      await expect(bind(CREATE_TICKET, ['--json', '-'], undefined, stdin)).resolves.toMatchObject({
        customerId: 'C-1001',
      });
      expect(stdin).toHaveBeenCalledTimes(1);
      await bind(SEARCH_TICKETS, ['--assignee', '-'], undefined, stdin);
      expect(stdin).toHaveBeenCalledTimes(1);
    });

    it('lets the options given as well override its properties, arrays replaced', async () => {
      await expect(
        bind(TAG_TICKETS, [
          '--ticket-ids',
          'T-9',
          '--JSON={"ticketIds":["T-1","T-2"],"notify":true,"extra":1}',
          '--no-notify',
        ]),
      ).resolves.toEqual({ ticketIds: ['T-9'], notify: false, extra: 1 });
    });

    it('refuses what is not a JSON object, once', async () => {
      expect(await problems(SEARCH_TICKETS, ['--json', '[1,2]'])).toEqual([
        '--json: expected a JSON object; got "[1,2]"',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--json', '{"status":'])).toEqual([
        '--json: expected a JSON object; got "{\\"status\\":"',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--json', '-'], undefined, () => Promise.resolve('status=open'))).toEqual([
        '--json: expected a JSON object on stdin; got "status=open"',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--json', '{}', '--json', '{}'])).toEqual([
        '--json: expected one value (given more than once)',
      ]);
      expect(await problems(SEARCH_TICKETS, ['--json'])).toEqual([
        '--json: expected a JSON object, or - to read one from stdin',
      ]);
    });
  });

  describe('required properties', () => {
    it('reports every missing one at once, by its option', async () => {
      expect(await problems(CREATE_TICKET, ['--subject', 'VAT is wrong'])).toEqual([
        '--customer-id: required; expected a string',
        '--description: required; expected a string',
        '--priority: required; expected one of low, normal, high, urgent',
      ]);
    });

    it('names a positional one by its placeholder, and counts what --json gives', async () => {
      expect(await problems(CLOSE_TICKET, [], { positional: ['ticketId'] })).toEqual([
        '<ticket-id>: required; expected a string',
        '--resolution: required; expected a string',
      ]);
      await expect(
        bind(CLOSE_TICKET, ['T-1', '--json', '{"resolution":"Refunded"}'], { positional: ['ticketId'] }),
      ).resolves.toEqual({ ticketId: 'T-1', resolution: 'Refunded' });
    });

    it('does not report as missing a property whose value was refused', async () => {
      expect(
        await problems(CREATE_TICKET, [
          '--priority',
          'asap',
          '--json',
          '{"customerId":"C-1","subject":"s","description":"d"}',
        ]),
      ).toEqual(['--priority: expected one of low, normal, high, urgent; got "asap"']);
    });
  });

  it('reports every kind of problem of one command line together, in order', async () => {
    expect(await problems(CREATE_TICKET, ['--subjet', 'VAT', '--priority', 'p1', 'stray'])).toEqual([
      '--subjet: unknown option; did you mean --subject?',
      '--priority: expected one of low, normal, high, urgent; got "p1"',
      '"stray": unexpected argument; options are written --name value',
      '--customer-id: required; expected a string',
      '--subject: required; expected a string',
      '--description: required; expected a string',
    ]);
  });
});
