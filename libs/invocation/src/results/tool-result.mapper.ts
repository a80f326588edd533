import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && CONTENT_TYPES.has((value as { type?: unknown }).type as string);
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as CallToolResult).content) &&
    (value as CallToolResult).content.every(isContentBlock)
  );
}

/**
 * Maps what a tool returned to a `CallToolResult`: a string becomes text; a content block or
 * an array of them becomes the content; a full result passes through; any other object
 * becomes `structuredContent` plus its JSON as text (as the spec recommends).
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (isCallToolResult(value)) return value;
  if (isContentBlock(value)) return { content: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
  if (typeof value === 'object' && !Array.isArray(value)) {
    return {
      content: [{ type: 'text', text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    };
  }
  return { content: [{ type: 'text', text: typeof value === 'bigint' ? value.toString() : JSON.stringify(value) }] };
}

/** A failed call, reported to the model as a result with `isError: true`. */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The longest error text an audit record keeps of a failed call. */
const ERROR_TEXT_LIMIT = 1_000;

/** What an error result told the caller, as one line of text (for the audit trail), capped in length. */
export function errorTextOf(result: CallToolResult): string | undefined {
  let text = '';
  for (const block of result.content ?? []) if (block.type === 'text') text += (text ? ' ' : '') + block.text;
  if (!text) return undefined;
  text = text.replace(/\s*\n\s*/g, ' ');
  return text.length > ERROR_TEXT_LIMIT ? `${text.slice(0, ERROR_TEXT_LIMIT - 1)}…` : text;
}
