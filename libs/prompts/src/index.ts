export { PROMPT_PROVIDERS } from './prompt.providers';
export { PromptGetter } from './prompt.getter';
export { PromptMethods } from './prompt.methods';
export { userMessage, assistantMessage } from './prompt-messages';
export { toGetPromptResult } from './prompt-result.mapper';
