import { Injectable } from '@nestjs/common';
import { CatalogList } from '../lists/catalog-list';
import type { RegisteredPrompt } from './registered-prompt.interface';

/** The prompts the host serves, with `prompts/list` pages serialized once per version. */
@Injectable()
export class PromptRegistry extends CatalogList<RegisteredPrompt> {
  constructor() {
    super('prompts', 'prompts', 'prompt name');
  }
}
