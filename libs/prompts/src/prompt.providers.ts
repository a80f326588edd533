import { PromptGetter } from './prompt.getter';

/** Serves the prompts found by the catalog. */
export const PROMPT_PROVIDERS = [PromptGetter];
