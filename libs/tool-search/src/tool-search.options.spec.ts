import { Bm25ToolRanker } from './rankers/bm25-tool-ranker';
import { resolveToolSearchOptions } from './tool-search.options';

function resolve(toolSearch: unknown) {
  const problems: string[] = [];
  const options = resolveToolSearchOptions({ toolSearch }, (option, problem, fix) => {
    expect(fix.trim()).not.toBe('');
    problems.push(`${option}: ${problem}`);
  });
  return { options, problems };
}

describe('resolveToolSearchOptions', () => {
  it('is off unless asked for', () => {
    expect(resolve(undefined)).toEqual({ options: undefined, problems: [] });
    expect(resolve(false)).toEqual({ options: undefined, problems: [] });
  });

  it('takes true for the defaults', () => {
    expect(resolve(true)).toEqual({
      options: {
        limit: 5,
        maxLimit: 20,
        listOnly: false,
        ranker: undefined,
        searchToolName: 'search_tools',
        callToolName: 'call_tool',
      },
      problems: [],
    });
  });

  it('keeps a ranker that can index and search', () => {
    const ranker = new Bm25ToolRanker();
    expect(resolve({ ranker, listOnly: true }).options).toMatchObject({ ranker, listOnly: true });
  });

  it('reports every problem with the option it is in', () => {
    expect(
      resolve({
        limit: 30,
        maxLimit: 10,
        ranker: {},
        searchToolName: 'find tools',
        callToolName: 'search_tools',
        extra: 1,
      }).problems,
    ).toEqual([
      'toolSearch.extra: is not a known option',
      'toolSearch.ranker: must have index(tools) and search(query, options)',
      'toolSearch.searchToolName: must be a tool name (letters, digits, "_", "-", ".")',
      'toolSearch.limit: (30) is more than maxLimit (10)',
      'toolSearch.callToolName: is the name of the search tool too',
    ]);
    expect(resolve('yes').problems).toEqual(['toolSearch: must be true or an object']);
  });
});
