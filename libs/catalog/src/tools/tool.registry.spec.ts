import { Logger } from '@nestjs/common';
import type { RegisteredTool } from './registered-tool.interface';
import { ToolRegistry } from './tool.registry';

const tool = (name: string, inputSchema: unknown, outputSchema?: unknown) =>
  ({ key: name, name, where: `Tools.${name}`, definition: { name, inputSchema, outputSchema } }) as RegisteredTool;

describe('ToolRegistry', () => {
  afterEach(() => jest.restoreAllMocks());

  it('warns, one line per tool, about schemas strict clients refuse: the tool, each JSON pointer and its fix; serves it all the same', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const registry = new ToolRegistry();
    registry.add([
      tool('portable', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }),
      tool(
        'get_ticket',
        { type: 'object', properties: { id: { type: 'string' } } },
        { type: 'object', properties: { assignee: { type: ['string', 'null'] }, extra: true } },
      ),
    ]);
    expect(registry.get('get_ticket')).toBeDefined();
    expect(warn.mock.calls).toEqual([
      [
        'Tool "get_ticket" has a schema strict clients (Gemini, OpenAI strict mode, the MCP Inspector\'s --strict) would refuse: ' +
          'outputSchema#/properties/assignee: `type` is a list (["string","null"]), which a one-type schema dialect ' +
          '(Gemini\'s function declarations) cannot read (fix: write "anyOf": [{"type":"string"},{"type":"null"}], ' +
          "each type's keywords in its branch (DTO, zod and OpenAPI schemas are given this form by the host)); " +
          'outputSchema#/properties/extra: `true` stands where a schema object is expected (fix: write {} (or better, the value\'s "type"))',
      ],
    ]);
  });
});
