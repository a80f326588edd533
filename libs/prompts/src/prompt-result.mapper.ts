import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/sdk/types.js';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

const isContent = (value: unknown): value is PromptMessage['content'] =>
  typeof value === 'object' && value !== null && CONTENT_TYPES.has((value as { type?: string }).type ?? '');

const isMessage = (value: unknown): value is PromptMessage =>
  typeof value === 'object' &&
  value !== null &&
  ((value as PromptMessage).role === 'user' || (value as PromptMessage).role === 'assistant') &&
  isContent((value as PromptMessage).content);

/**
 * Maps what a prompt returned to a `GetPromptResult`: a string or a content block becomes one
 * user message; messages (one or an array) are used as they are; `{ messages }` passes through.
 * Content blocks in an array become one user message each.
 * @throws TypeError for anything else (reported to the client as an internal error).
 */
export function toGetPromptResult(value: unknown, description: string | undefined): GetPromptResult {
  const withDescription = (messages: PromptMessage[]): GetPromptResult => ({
    ...(description && { description }),
    messages,
  });
  if (typeof value === 'string') return withDescription([{ role: 'user', content: { type: 'text', text: value } }]);
  if (isMessage(value)) return withDescription([value]);
  if (isContent(value)) return withDescription([{ role: 'user', content: value }]);
  if (Array.isArray(value) && value.every((item) => isMessage(item) || isContent(item))) {
    return withDescription(value.map((item) => (isMessage(item) ? item : { role: 'user', content: item })));
  }
  if (typeof value === 'object' && value !== null && Array.isArray((value as GetPromptResult).messages)) {
    return value as GetPromptResult;
  }
  throw new TypeError('a prompt must return a string, content, messages or { messages }');
}
