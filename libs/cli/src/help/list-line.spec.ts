import { firstSentence, formatList, formatListLine } from './list-line';

describe('firstSentence', () => {
  it.each([
    ['Closes a ticket. Closing it again changes nothing.', 'Closes a ticket.'],
    ['Finds customers, e.g. by name. Case-insensitive.', 'Finds customers, e.g. by name.'],
    ['Lists tickets (i.e. all of them) etc. and more! Then others.', 'Lists tickets (i.e. all of them) etc. and more!'],
    ['Version 1.5 is out? Yes.', 'Version 1.5 is out?'],
    ['No period at the end', 'No period at the end'],
    ['Spread\n  over   lines. Second.', 'Spread over lines.'],
  ])('%j → %j', (text, sentence) => expect(firstSentence(text)).toBe(sentence));
});

describe('formatList', () => {
  it('aligns the first sentences after the longest name', () => {
    expect(
      formatList([
        { name: 'search_tickets', description: 'Lists tickets filtered by status. Newest ids last.' },
        { name: 'close_ticket', description: 'Closes a ticket with a resolution.' },
        { name: 'ping' },
      ]),
    ).toEqual([
      '  search_tickets  Lists tickets filtered by status.',
      '  close_ticket    Closes a ticket with a resolution.',
      '  ping',
    ]);
  });

  it('cuts a sentence too long for the width with an ellipsis', () => {
    const line = formatListLine(
      { name: 'export_ticket_report', description: `Exports ${'every ticket '.repeat(10)}as CSV.` },
      20,
      60,
    );
    expect(line).toBe('  export_ticket_report  Exports every ticket every ticket…');
    expect(line.length).toBeLessThanOrEqual(60);
  });

  it('lets a name longer than the column push its own description along', () => {
    const lines = formatList([
      { name: 'a'.repeat(40), description: 'Long.' },
      { name: 'b', description: 'Short.' },
    ]);
    expect(lines).toEqual([`  ${'a'.repeat(40)}  Long.`, `  b${' '.repeat(33)}Short.`]);
  });
});
