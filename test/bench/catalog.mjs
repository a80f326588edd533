// The benchmark catalog shared by the reference servers: `add` plus 100 no-op tools, 100
// prompts and 100 resources, the same definitions the bench app publishes.
export const NOOP_COUNT = 100;

export const ADD_TOOL = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  annotations: { readOnlyHint: true },
};

export const NOOP_TOOLS = Array.from({ length: NOOP_COUNT }, (_, index) => ({
  name: `noop_${index}`,
  description: `Does nothing (catalog filler ${index})`,
  inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
}));

export const PROMPTS = Array.from({ length: NOOP_COUNT }, (_, index) => ({
  name: `prompt_${index}`,
  description: `Catalog filler prompt ${index}`,
  arguments: [{ name: 'topic', description: 'What about', required: true }],
}));

export const RESOURCES = Array.from({ length: NOOP_COUNT }, (_, index) => ({
  uri: `bench://items/${index}`,
  name: `item_${index}`,
  description: `Catalog filler resource ${index}`,
  mimeType: 'text/plain',
}));
