import { CLOSE_TICKET, SEARCH_TICKETS, TAG_TICKETS } from '../testing/desk-tools';
import { cliOptionsOf } from './cli-options';

describe('cliOptionsOf', () => {
  it('makes an option of each top-level property, with what help needs from its schema', () => {
    const table = cliOptionsOf(SEARCH_TICKETS);
    expect(table.options.map((option) => option.label)).toEqual([
      '--status',
      '--priority',
      '--customer-id',
      '--assignee',
      '--limit',
    ]);
    expect(table.options[4]).toEqual({
      property: 'limit',
      long: ['limit'],
      short: [],
      negatable: false,
      type: { kind: 'scalar', types: ['integer'] },
      required: false,
      description: 'The most tickets to return.',
      default: 20,
      label: '--limit',
    });
    expect(table.positional).toEqual([]);
  });

  it('finds an option by any spelling, long ones ignoring case, and says when it is negated', () => {
    const table = cliOptionsOf(TAG_TICKETS, { aliases: { notify: ['-N', '--tell'] } });
    expect(table.find('--TICKET-ids')?.option.property).toBe('ticketIds');
    expect(table.find('--ticketIds')?.option.property).toBe('ticketIds');
    expect(table.find('--no-Tell')).toMatchObject({ option: { property: 'notify' }, negated: true });
    expect(table.find('-N')).toMatchObject({ option: { property: 'notify' }, negated: false });
    expect(table.find('-n')).toBeUndefined();
    expect(table.find('--no-ratio')).toBeUndefined();
    expect(table.find('ticket-ids')).toBeUndefined();
  });

  it('lists every spelling for suggestions and completion', () => {
    const table = cliOptionsOf(CLOSE_TICKET, { aliases: { resolution: '-r' } });
    expect(table.spellings()).toEqual(['--ticket-id', '--ticketId', '--resolution', '-r']);
  });

  it('orders the positional properties as declared, labelled as placeholders, required as the schema says', () => {
    const table = cliOptionsOf(CLOSE_TICKET, { positional: ['resolution', 'ticketId'], names: { ticketId: 'id' } });
    expect(table.positional.map((option) => [option.label, option.position, option.required])).toEqual([
      ['<resolution>', 0, true],
      ['<id>', 1, true],
    ]);
  });

  it('names an option left without names by --json', () => {
    const table = cliOptionsOf({ type: 'object', properties: { output: { type: 'string' } }, required: ['output'] });
    expect(table.options[0]).toMatchObject({ long: [], label: '--json property "output"', required: true });
  });
});
