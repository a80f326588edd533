/**
 * What the tool rankers say: options that cannot work (at construction), and a text embedder
 * that broke its contract (from `search`). Each message names the culprit and the fix.
 */
export const ToolSearchMessages = {
  invalidWeight: (field: string, weight: unknown) =>
    `Bm25ToolRanker: the weight of "${field}" must be a finite number ≥ 0, not ${String(weight)}.`,
  invalidOption: (option: string, value: unknown, range: string) =>
    `${option} must be a number ${range}, not ${String(value)}.`,
  vectorCount: (vectors: number | undefined, texts: number) =>
    `The text embedder returned ${vectors ?? 'no'} vectors for ${texts} texts; ` +
    'it must return one vector per text, in order.',
  vectorLengths: (lengths: readonly number[]) =>
    `The text embedder returned vectors of different lengths (${lengths.join(', ')}); ` +
    'they must all have the same length.',
  queryVectorLength: (query: number, tools: number) =>
    `The text embedder returned a query vector of length ${query}; the tools' have ${tools}. ` +
    'Index the tools again after changing the embedding model.',
} as const;
