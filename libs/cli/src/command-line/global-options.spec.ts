import { parseCommandLine } from './global-options';

const parse = (argv: string[], apiKeyFromEnv?: string) => parseCommandLine(argv, apiKeyFromEnv);

describe('parseCommandLine', () => {
  it('finds the command and leaves the other words in order', () => {
    expect(parse(['call', 'search_tickets', '--status', 'open', 'T-1'])).toEqual({
      command: 'call',
      words: ['search_tickets', '--status', 'open', 'T-1'],
      global: { apiKey: undefined, output: 'text', outDir: undefined, yes: false, help: false },
    });
  });

  it('takes the global options out wherever they stand: before, between and after the words', () => {
    const line = parse([
      '--output',
      'json',
      'call',
      '--yes',
      'close_ticket',
      '--out-dir',
      'files',
      'T-1',
      '--api-key',
      'k1',
      '--resolution',
      'done',
    ]);
    expect(line.command).toBe('call');
    expect(line.words).toEqual(['close_ticket', 'T-1', '--resolution', 'done']);
    expect(line.global).toEqual({ apiKey: 'k1', output: 'json', outDir: 'files', yes: true, help: false });
  });

  it('reads --x=value as --x value', () => {
    expect(parse(['list', '--output=json', '--api-key=k=with=equals', '--out-dir=./out']).global).toMatchObject({
      output: 'json',
      apiKey: 'k=with=equals',
      outDir: './out',
    });
  });

  it('ignores the case of option names, and keeps the case of their values', () => {
    const line = parse(['LIST', '--OUTPUT', 'json', '--Api-Key=MixedCase', '--Out-Dir', 'Out', '--YES', '--Help']);
    expect(line.command).toBe('LIST');
    expect(line.global).toEqual({ apiKey: 'MixedCase', output: 'json', outDir: 'Out', yes: true, help: true });
  });

  it('takes -h and --help for help', () => {
    expect(parse(['-h']).global.help).toBe(true);
    expect(parse(['call', 'x', '--help']).global.help).toBe(true);
    // -H is not -h: short options are case-sensitive, and left for the command.
    expect(parse(['call', 'x', '-H'])).toMatchObject({ words: ['x', '-H'], global: { help: false } });
  });

  it('stops at --: everything after it is left as it is, -- included, for the command', () => {
    const line = parse(['call', 'echo', '--', '--yes', '--output', 'xml', '-h', '--api-key']);
    expect(line.words).toEqual(['echo', '--', '--yes', '--output', 'xml', '-h', '--api-key']);
    expect(line.global).toEqual({ apiKey: undefined, output: 'text', outDir: undefined, yes: false, help: false });
  });

  it('leaves flags with a value (--yes=true) and other options for the command', () => {
    expect(parse(['call', 'x', '--yes=true', '--limit', '5']).words).toEqual(['x', '--yes=true', '--limit', '5']);
  });

  it.each([
    [['list', '--api-key'], '--api-key: expected a value'],
    [['list', '--out-dir'], '--out-dir: expected a value'],
    [['list', '--output'], '--output: expected a value'],
    [['list', '--api-key', '--yes'], '--api-key: expected a value'],
    [['list', '--out-dir', '--output', 'json'], '--out-dir: expected a value'],
    [['list', '--api-key='], '--api-key: expected a value'],
    [['list', '--out-dir='], '--out-dir: expected a value'],
    [['list', '--api-key', ''], '--api-key: expected a value'],
    [['list', '--output='], '--output: expected a value'],
  ])('refuses a global option without its value: %j', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it.each([['xml'], ['JSON']])('refuses --output %j, naming what it takes', (value) => {
    expect(() => parse(['list', '--output', value])).toThrow(`--output: expected one of text, json; got "${value}"`);
    expect(() => parse(['list', `--output=${value}`])).toThrow(/^--output: expected/);
  });

  it('takes the API key from the environment, and --api-key over it', () => {
    expect(parse(['list'], 'from-env').global.apiKey).toBe('from-env');
    expect(parse(['list', '--api-key', 'from-flag'], 'from-env').global.apiKey).toBe('from-flag');
    expect(parse(['--api-key=from-flag', 'list'], 'from-env').global.apiKey).toBe('from-flag');
  });

  it('has no command when there are only options', () => {
    expect(parse(['--yes', '--output', 'json'])).toMatchObject({ command: undefined, words: [] });
    expect(parse([])).toMatchObject({ command: undefined, words: [] });
  });
});
