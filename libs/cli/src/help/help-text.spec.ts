import { cliOptionsOf } from '../binding/cli-options';
import { CLOSE_TICKET, SEARCH_TICKETS, TAG_TICKETS } from '../testing/desk-tools';
import { describeTool } from './help-text';

const SEARCH = {
  name: 'search_tickets',
  title: 'Search tickets',
  description:
    'Lists tickets filtered by status, priority, customer, assignee or words in the subject/description (newest ids last).',
};

describe('describeTool', () => {
  it('documents each option with its aliases, type, allowed values, default and description, wrapped to 80 columns', () => {
    const text = describeTool(SEARCH, cliOptionsOf(SEARCH_TICKETS, { aliases: { status: ['-s', '--st'] } }));
    expect(text).toBe(
      [
        'search_tickets — Search tickets',
        '',
        'Lists tickets filtered by status, priority, customer, assignee or words in the',
        'subject/description (newest ids last).',
        '',
        'Usage: call search_tickets [options]',
        '',
        'Options:',
        '  -s, --status, --st <value>  Only tickets in this status: open (being worked),',
        '                              pending (waiting on the customer) or closed. [one',
        '                              of: open, pending, closed]',
        '  --priority <value>          Only tickets of this priority. [one of: low,',
        '                              normal, high, urgent]',
        '  --customer-id <string>      Only tickets of this customer, e.g. C-1001 (find',
        '                              ids with search_customers).',
        '  --assignee <string>         Only tickets assigned to this agent login, e.g.',
        '                              maria.lopez.',
        '  --limit <integer>           The most tickets to return. [default: 20]',
        '  --json <object|->           All arguments as one JSON object; - reads it from',
        '                              stdin. Options given as well override its',
        '                              properties.',
        '',
      ].join('\n'),
    );
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('shows positional arguments and required options in the usage line, and marks them required', () => {
    const text = describeTool(
      { name: 'close_ticket', description: 'Closes a ticket with a resolution.' },
      cliOptionsOf(CLOSE_TICKET, { positional: ['ticketId'] }),
      { command: 'desk call' },
    );
    expect(text).toBe(
      [
        'close_ticket',
        '',
        'Closes a ticket with a resolution.',
        '',
        'Usage: desk call close_ticket <ticket-id> --resolution <string> [options]',
        '',
        'Arguments:',
        '  <ticket-id>            The ticket to close, e.g. T-2001. [required; string;',
        '                         also --ticket-id]',
        '',
        'Options:',
        '  --resolution <string>  What fixed the problem, written for the customer; kept',
        '                         on the ticket and used in reports. [required]',
        '  --json <object|->      All arguments as one JSON object; - reads it from',
        '                         stdin. Options given as well override its properties.',
        '',
      ].join('\n'),
    );
  });

  it('shows flags with their negation, lists, unions, JSON values and optional positionals', () => {
    const text = describeTool({ name: 'tag_tickets' }, cliOptionsOf(TAG_TICKETS, { positional: ['tags'] }));
    expect(text).toContain('Usage: call tag_tickets [<tags>...] --ticket-ids <string>... [options]\n');
    expect(text).toContain(
      '  <tags>                    Tags to add. [list of value; also --tags; one of:\n' +
        '                            vat, refund, outage; repeat it, or separate values\n' +
        '                            with commas]\n',
    );
    expect(text).toContain('  --notify, --no-notify     Tell the customers.\n');
    expect(text).toContain('  --dry-run, --no-dry-run   [default: false]\n');
    expect(text).toContain('  --assignee <string|null>\n');
    expect(text).toContain('  --limit <value|integer>   [one of: all]\n');
    expect(text).toContain('  --filter <json>           [a JSON value]\n');
    expect(text).toContain(
      '  --attachments <json>...   [repeat it, a JSON value each (a JSON array gives\n' +
        '                            several)]\n',
    );
  });

  it('puts the description under an option too long for the left column, and wraps to the width asked', () => {
    const table = cliOptionsOf(
      {
        type: 'object',
        properties: {
          includeArchivedAttachments: { type: 'boolean', description: 'Also the attachments of archived tickets.' },
        },
      },
      { aliases: { includeArchivedAttachments: ['-a', '--archived'] } },
    );
    const text = describeTool(
      { name: 'export', description: 'Exports every ticket of the desk as a CSV file.' },
      table,
      {
        width: 40,
      },
    );
    const lines = text.split('\n');
    const names = lines.indexOf('  -a, --include-archived-attachments, --archived, --no-include-archived-attachments');
    expect(lines.slice(names + 1, names + 4)).toEqual([
      '                    Also the attachments',
      '                    of archived tickets.',
      '  --json <object|->',
    ]);
    expect(lines.filter((line) => line.length > 40)).toEqual([lines[names]]);
    expect(text).toContain('Exports every ticket of the desk as a\nCSV file.\n');
  });

  it('leaves out the own spelling of a property, and says which properties only --json gives', () => {
    const table = cliOptionsOf({
      type: 'object',
      properties: { output: { type: 'string' }, help: { type: 'string' }, customerId: { type: 'string' } },
      required: ['output'],
    });
    const text = describeTool({ name: 'export' }, table);
    expect(text).not.toContain('--output');
    expect(text).not.toContain('--customerId');
    expect(text).toContain('Usage: call export [options]\n');
    expect(text).toContain('  --customer-id <string>\n');
    expect(text).toContain(
      '  --json <object|->       All arguments as one JSON object; - reads it from\n' +
        '                          stdin. Options given as well override its properties.\n' +
        '                          Only there: output (required), help.\n',
    );
  });
});
