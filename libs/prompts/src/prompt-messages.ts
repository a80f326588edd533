import type { PromptMessage } from '@modelcontextprotocol/sdk/types.js';

type MessageContent = PromptMessage['content'];

const toContent = (content: string | MessageContent): MessageContent =>
  typeof content === 'string' ? { type: 'text', text: content } : content;

/**
 * A message from the user, for prompt results.
 *
 * @example
 * ```ts
 * return [userMessage(embeddedResource({ uri, mimeType: 'text/markdown', text })), userMessage('Summarise the article above.')];
 * ```
 */
export const userMessage = (content: string | MessageContent): PromptMessage => ({
  role: 'user',
  content: toContent(content),
});

/** A message from the assistant, e.g. to prime a conversation. */
export const assistantMessage = (content: string | MessageContent): PromptMessage => ({
  role: 'assistant',
  content: toContent(content),
});
