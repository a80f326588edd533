import { PromptGetter } from './prompt.getter';
import { PromptMethods } from './prompt.methods';

/** The prompts feature: its MCP methods and the getter that runs prompt handlers. */
export const PROMPT_PROVIDERS = [PromptGetter, PromptMethods];
