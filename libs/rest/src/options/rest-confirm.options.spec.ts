import { DEFAULT_REST_CONFIRM, resolveRestConfirm } from './rest-confirm.options';

function resolve(value: unknown, inherited = DEFAULT_REST_CONFIRM) {
  const problems: string[] = [];
  const options = resolveRestConfirm(
    value,
    'rest.confirm',
    (option, problem) => problems.push(`${option}: ${problem}`),
    inherited,
  );
  return { options, problems };
}

describe('resolveRestConfirm', () => {
  it('defaults to destructive operations asking, with undecided writes warned about', () => {
    expect(resolve(undefined)).toEqual({ options: DEFAULT_REST_CONFIRM, problems: [] });
    expect(DEFAULT_REST_CONFIRM).toEqual({
      writes: 'destructive',
      writesDecided: false,
      ask: undefined,
      skip: undefined,
      undecided: 'warn',
    });
  });

  it('takes a policy given as a string or as writes, as a decision for every write', () => {
    expect(resolve('writes').options).toEqual({ ...DEFAULT_REST_CONFIRM, writes: 'writes', writesDecided: true });
    expect(resolve({ writes: 'none', undecided: 'error' }).options).toEqual({
      ...DEFAULT_REST_CONFIRM,
      writes: 'none',
      writesDecided: true,
      undecided: 'error',
    });
  });

  it('keeps the ask and skip rules, and inherits what is not given', () => {
    const inherited = { ...DEFAULT_REST_CONFIRM, writes: 'writes' as const, writesDecided: true };
    expect(resolve({ ask: { operationIds: ['closeTicket'] }, skip: { paths: ['/api/tickets'] } }, inherited)).toEqual({
      options: { ...inherited, ask: { operationIds: ['closeTicket'] }, skip: { paths: ['/api/tickets'] } },
      problems: [],
    });
    expect(resolve(undefined, inherited).options).toBe(inherited);
  });

  it('reports every wrong value with where it is', () => {
    expect(resolve('deletes').problems).toEqual([
      "rest.confirm: must be 'destructive', 'writes' or 'none', not \"deletes\"",
    ]);
    expect(resolve({ writes: true, ask: ['closeTicket'], undecided: 'fail', when: 'always' }).problems).toEqual([
      'rest.confirm.when: is not a known option',
      "rest.confirm.undecided: must be 'warn' or 'error', not \"fail\"",
      "rest.confirm.writes: must be 'destructive', 'writes' or 'none', not true",
      'rest.confirm.ask: must be an object',
    ]);
    expect(resolve(true).problems).toEqual([
      "rest.confirm: must be 'destructive', 'writes', 'none' or { writes, ask, skip, undecided }",
    ]);
  });
});
