import { image, text } from '#libs/core';
import { errorTextOf, toCallToolResult, toolErrorResult } from './tool-result.mapper';

describe('toCallToolResult', () => {
  it('maps a string to text', () => {
    expect(toCallToolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('maps a plain object to structured content plus its JSON', () => {
    expect(toCallToolResult({ id: 1 })).toEqual({
      content: [{ type: 'text', text: '{"id":1}' }],
      structuredContent: { id: 1 },
    });
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

describe('errorTextOf', () => {
  it('joins the text blocks on one line and ignores the others', () => {
    const result = {
      isError: true,
      content: [
        { type: 'text' as const, text: 'Invalid arguments:\n- a: must be a number\n- b: required' },
        image('AAAA', 'image/png'),
        text('see the docs'),
      ],
    };
    expect(errorTextOf(result)).toBe('Invalid arguments: - a: must be a number - b: required see the docs');
  });

  it('caps long texts at 1,000 characters and has nothing to say without text', () => {
    const long = errorTextOf(toolErrorResult('x'.repeat(5_000)))!;
    expect(long).toHaveLength(1_000);
    expect(long.endsWith('x…')).toBe(true);
    expect(errorTextOf({ isError: true, content: [] })).toBeUndefined();
  });
});
