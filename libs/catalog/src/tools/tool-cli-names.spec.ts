import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { z } from 'zod';
import { McpArgs, McpStartupError, McpTool, type JsonSchemaObject, type McpToolCliOptions } from '#libs/core';
import { CatalogModule } from '../catalog.module';
import { ToolRegistry } from './tool.registry';
import { cliNamesOf, kebabCase } from './tool-cli-names';

/** The input schema of the support desk's search_tickets (as its DTO publishes it), plus a flag. */
const SEARCH_TICKETS: JsonSchemaObject = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['open', 'pending', 'closed'] },
    priority: { type: 'string', enum: ['low', 'normal', 'high', 'urgent'] },
    customerId: { type: 'string', pattern: '^C-\\d{4}$' },
    assignee: { type: 'string' },
    text: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    includeClosed: { type: 'boolean' },
  },
};

function check(schema: JsonSchemaObject, cli?: McpToolCliOptions | unknown) {
  const problems: string[] = [];
  const fixes: string[] = [];
  const names = cliNamesOf(schema, cli as McpToolCliOptions, ({ problem, fix }) => {
    problems.push(problem);
    fixes.push(fix);
  });
  return { names, problems, fixes };
}

const props = (properties: Record<string, unknown>): JsonSchemaObject => ({ type: 'object', properties });

describe('kebabCase', () => {
  it.each([
    ['ticketId', 'ticket-id'],
    ['ticket_id', 'ticket-id'],
    ['TicketID', 'ticket-id'],
    ['HTTPServer', 'http-server'],
    ['v2Name', 'v2-name'],
    ['already-kebab', 'already-kebab'],
    ['__private', 'private'],
    ['größeKlasse', 'größe-klasse'],
    ['$', ''],
  ])('%s → %s', (name, kebab) => expect(kebabCase(name)).toBe(kebab));
});

describe('cliNamesOf', () => {
  it('names each property by its kebab-case name and its own spelling, and lets booleans be negated', () => {
    const { names, problems } = check(SEARCH_TICKETS);
    expect(problems).toEqual([]);
    expect(names.map(({ property, long, short, negatable }) => ({ property, long, short, negatable }))).toEqual([
      { property: 'status', long: ['status'], short: [], negatable: false },
      { property: 'priority', long: ['priority'], short: [], negatable: false },
      { property: 'customerId', long: ['customer-id', 'customerId'], short: [], negatable: false },
      { property: 'assignee', long: ['assignee'], short: [], negatable: false },
      { property: 'text', long: ['text'], short: [], negatable: false },
      { property: 'limit', long: ['limit'], short: [], negatable: false },
      { property: 'includeClosed', long: ['include-closed', 'includeClosed'], short: [], negatable: true },
    ]);
    expect(names[0].type).toEqual({ kind: 'scalar', types: [], values: ['open', 'pending', 'closed'] });
    expect(names.some((entry) => 'position' in entry)).toBe(false);
  });

  it('puts the CLI name in place of both spellings, adds aliases, and numbers the positional properties', () => {
    const { names, problems } = check(SEARCH_TICKETS, {
      positional: ['customerId', 'text'],
      names: { customerId: 'customer' },
      aliases: { status: ['-s', '--st'], limit: '-n', customerId: '-c' },
    });
    expect(problems).toEqual([]);
    const byProperty = new Map(names.map((entry) => [entry.property, entry]));
    expect(byProperty.get('customerId')).toMatchObject({ long: ['customer'], short: ['c'], position: 0 });
    expect(byProperty.get('text')).toMatchObject({ long: ['text'], position: 1 });
    expect(byProperty.get('status')).toMatchObject({ long: ['status', 'st'], short: ['s'] });
    expect(byProperty.get('limit')).toMatchObject({ long: ['limit'], short: ['n'] });
  });

  it('reports names of properties the schema does not have, with the ones it has', () => {
    const { problems, fixes } = check(props({ ticketId: { type: 'string' }, resolution: { type: 'string' } }), {
      positional: ['ticketID'],
      aliases: { reason: '-r' },
      names: { id: 'ticket' },
    });
    expect(problems).toEqual([
      'cli.names names "id", which is not a property of the input schema',
      'cli.aliases names "reason", which is not a property of the input schema',
      'cli.positional names "ticketID", which is not a property of the input schema',
    ]);
    expect(fixes[0]).toBe("use one of the input's top-level properties: ticketId, resolution");
  });

  it('reports a declaration on a tool without properties', () => {
    const { problems, fixes } = check({ type: 'object' }, { positional: ['id'] });
    expect(problems).toEqual(['cli.positional names "id", which is not a property of the input schema']);
    expect(fixes).toEqual(['the input schema has no properties; remove cli.positional']);
  });

  it('reports two properties sharing an option, whatever gives it to them, and keeps it for the first', () => {
    const { names, problems } = check(
      props({
        ticketId: { type: 'string' },
        ticket_id: { type: 'string' },
        status: { type: 'string' },
        state: { type: 'string' },
        priority: { type: 'string' },
      }),
      { aliases: { state: ['--STATUS', '-p'], priority: '-p' }, names: { priority: 'ticket-ID' } },
    );
    expect(problems).toEqual([
      '--ticket-id (its kebab-case name of "ticket_id") is already an option of "ticketId" (long options ignore case)',
      '--STATUS (its alias --STATUS of "state") is already an option of "status" (long options ignore case)',
      '--ticket-ID (its CLI name of "priority") is already an option of "ticketId" (long options ignore case)',
      '-p (its alias -p of "priority") is already an option of "state" (long options ignore case)',
    ]);
    const byProperty = new Map(names.map((entry) => [entry.property, entry]));
    expect(byProperty.get('ticket_id')!.long).toEqual(['ticket_id']);
    expect(byProperty.get('state')).toMatchObject({ long: ['state'], short: ['p'] });
    expect(byProperty.get('priority')).toMatchObject({ long: [], short: [] });
  });

  it('reports properties and aliases that take an option the CLI keeps for itself', () => {
    const { names, problems, fixes } = check(
      props({
        output: { type: 'string' },
        apiKey: { type: 'string' },
        out_dir: { type: 'string' },
        Help: { type: 'boolean' },
        yes: { type: 'boolean' },
        format: { type: 'string' },
      }),
      { aliases: { format: ['-h', '--Json'] } },
    );
    expect(problems).toEqual([
      '--output (its kebab-case name of "output") is an option the CLI keeps for itself',
      '--api-key (its kebab-case name of "apiKey") is an option the CLI keeps for itself',
      '--out-dir (its kebab-case name of "out_dir") is an option the CLI keeps for itself',
      '--help (its kebab-case name of "Help") is an option the CLI keeps for itself',
      '--yes (its kebab-case name of "yes") is an option the CLI keeps for itself',
      '-h (its alias -h of "format") is an option the CLI keeps for itself',
      '--Json (its alias --Json of "format") is an option the CLI keeps for itself',
    ]);
    expect(fixes[0]).toBe('give "output" another CLI name, cli: { names: { output: \'...\' } }, or drop the alias');
    // What is left still works: apiKey keeps its own spelling.
    expect(names.find((entry) => entry.property === 'apiKey')!.long).toEqual(['apiKey']);
    expect(names.find((entry) => entry.property === 'output')!.long).toEqual([]);
  });

  it('reports a --no- negation that is another property’s option, in either order', () => {
    const { names, problems } = check(props({ dryRun: { type: 'boolean' }, noDryRun: { type: 'string' } }), {});
    expect(problems).toEqual([
      '--no-dry-run (its kebab-case name of "noDryRun") is already an option of "dryRun" (long options ignore case)',
    ]);
    // --noDryRun is not --no-dry-run: it stays the property's own spelling.
    expect(names[1].long).toEqual(['noDryRun']);
    expect(check(props({ 'no-cache': { type: 'string' }, cache: { type: ['boolean', 'null'] } }), {}).problems).toEqual(
      ['--no-cache (the negation of --cache of "cache") is already an option of "no-cache" (long options ignore case)'],
    );
    // Not a boolean: no negation, nothing to clash with.
    expect(check(props({ cache: { type: 'string' }, noCache: { type: 'string' } }), {}).problems).toEqual([]);
  });

  it('reports malformed aliases and CLI names', () => {
    const { problems, fixes } = check(props({ status: { type: 'string' }, ticketId: { type: 'string' } }), {
      aliases: { status: ['s', '-st', '---x', '-1', '--a b', 5] },
      names: { ticketId: '--id' },
    });
    expect(problems).toEqual([
      'alias "s" of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'alias "-st" of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'alias "---x" of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'alias "-1" of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'alias "--a b" of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'alias 5 of "status" is neither a short option (-x, one letter) nor a long one (--name)',
      'CLI name "--id" of "ticketId" is not an option name (a letter or digit, then letters, digits, _ . or -)',
    ]);
    expect(fixes[6]).toBe("write it without dashes, e.g. cli: { names: { ticketId: 'id' } }");
  });

  it('reports object positionals, an array positional before the last, and a property listed twice', () => {
    const { names, problems } = check(
      props({
        tags: { type: 'array', items: { type: 'string' } },
        ticketId: { type: 'string' },
        filter: { type: 'object', properties: { status: { type: 'string' } } },
        ids: { type: 'array', items: { type: 'string' } },
      }),
      { positional: ['tags', 'ticketId', 'ticketId', 'filter', 'ids'] },
    );
    expect(problems).toEqual([
      'cli.positional lists "ticketId" twice',
      '"tags" is an array, so as a positional argument it takes every remaining argument, but it is not the last positional property',
      '"filter" is positional but its value is an object (or composes more than a word can say)',
    ]);
    expect(names.map((entry) => entry.position)).toEqual([0, 1, 2, 3]);
  });

  it('reports a declaration of the wrong shape, and a property with nothing to name an option after', () => {
    expect(check(props({ a: {} }), 'a').problems).toEqual(['cli is "a", not an object']);
    expect(check(props({ a: {} }), { positional: 'a', aliases: ['-a'], names: 'x' }).problems).toEqual([
      'cli.names is "x", not an object',
      'cli.aliases is ["-a"], not an object',
      'cli.positional is "a", not a list of property names',
    ]);
    const { names, problems } = check(props({ $: {}, '%': {} }), { aliases: { '%': '-p' } });
    expect(problems).toEqual(['"$" has no letter or digit to make an option name of']);
    expect(names.map((entry) => [entry.long, entry.short])).toEqual([
      [[], []],
      [[], ['p']],
    ]);
  });
});

class CloseTicketDto {
  @IsString()
  ticketId!: string;

  @IsString()
  resolution!: string;

  @IsOptional()
  @IsBoolean()
  notify?: boolean;

  @IsOptional()
  @IsIn(['json', 'text'])
  output?: string;
}

@Injectable()
class CliTools {
  @McpTool({
    name: 'close_ticket',
    description: 'Closes a ticket',
    cli: { positional: ['ticketId'], aliases: { resolution: '-r' }, names: { output: 'format' } },
  })
  close(@McpArgs() _args: CloseTicketDto) {}

  // No declaration: its `output` property clashes with the CLI's --output, and nothing is reported.
  @McpTool({ name: 'export', description: 'Exports', input: z.object({ output: z.string() }) })
  export(@McpArgs() _args: { output: string }) {}
}

@Injectable()
class BrokenCliTools {
  @McpTool({
    name: 'close_ticket',
    description: 'Closes a ticket',
    cli: { positional: ['ticket'], aliases: { resolution: 'r' } },
  })
  close(@McpArgs() _args: CloseTicketDto) {}

  @McpTool({ name: 'ping', description: 'Pings', cli: { positional: ['host'] } })
  ping() {}
}

describe('the cli declaration at start-up', () => {
  it('registers tools whose declaration fits their input schema, and tools that declare none', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [CliTools] }).compile();
    await moduleRef.init();
    const registry = moduleRef.get(ToolRegistry);
    expect(registry.get('close_ticket')!.options.cli).toEqual({
      positional: ['ticketId'],
      aliases: { resolution: '-r' },
      names: { output: 'format' },
    });
    expect(registry.get('export')).toBeDefined();
    await moduleRef.close();
  });

  it('refuses to start with every problem of every declaration, naming Class.method and the fix', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [CatalogModule],
      providers: [BrokenCliTools],
    }).compile();
    const error = await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpStartupError);
    const { diagnostics } = error as McpStartupError;
    expect(diagnostics.map((d) => `${d.where}: ${d.problem}`)).toEqual([
      'BrokenCliTools.close: cli.positional names "ticket", which is not a property of the input schema',
      'BrokenCliTools.close: alias "r" of "resolution" is neither a short option (-x, one letter) nor a long one (--name)',
      'BrokenCliTools.close: --output (its kebab-case name of "output") is an option the CLI keeps for itself',
      'BrokenCliTools.ping: cli.positional names "host", which is not a property of the input schema',
    ]);
    expect(diagnostics[0].fix).toBe(
      "use one of the input's top-level properties: ticketId, resolution, notify, output",
    );
  });
});
