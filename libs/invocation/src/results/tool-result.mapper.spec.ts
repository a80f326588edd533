import { image, text } from '#libs/core';
import { toCallToolResult } from './tool-result.mapper';

describe('toCallToolResult', () => {
  it('maps a string to text', () => {
    expect(toCallToolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('maps a plain object to structured content plus its JSON', () => {
    expect(toCallToolResult({ id: 1 })).toEqual({ content: [{ type: 'text', text: '{"id":1}' }], structuredContent: { id: 1 } });
  });

  it('maps content blocks and arrays of them', () => {
    expect(toCallToolResult(text('a'))).toEqual({ content: [{ type: 'text', text: 'a' }] });
    expect(toCallToolResult([text('a'), image('AA==', 'image/png')]).content).toHaveLength(2);
  });

  it('passes a full result through', () => {
    const result = { content: [text('x')], isError: true };
    expect(toCallToolResult(result)).toBe(result);
  });

  it('maps nothing to empty content and scalars to text', () => {
    expect(toCallToolResult(undefined)).toEqual({ content: [] });
    expect(toCallToolResult(7)).toEqual({ content: [{ type: 'text', text: '7' }] });
    expect(toCallToolResult([1, 2])).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
  });
});
