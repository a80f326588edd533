export { PROMPT_PROVIDERS } from './prompt.providers';
export { PromptGetter } from './prompt.getter';
export { userMessage, assistantMessage } from './prompt-messages';
export { toGetPromptResult } from './prompt-result.mapper';
