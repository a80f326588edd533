import { Injectable, type OnModuleInit } from '@nestjs/common';
import { McpCatalog } from 'nest-mcp-host';

export const FILLER_COUNT = 100;

/** 100 prompts and 100 resources, added through the run-time catalog API, so that lists are realistically long. */
@Injectable()
export class CatalogFiller implements OnModuleInit {
  constructor(private readonly catalog: McpCatalog) {}

  onModuleInit(): void {
    for (let index = 0; index < FILLER_COUNT; index++) {
      this.catalog.addPrompt(
        {
          name: `prompt_${index}`,
          description: `Catalog filler prompt ${index}`,
          args: [{ name: 'topic', description: 'What about', required: true }],
        },
        ({ topic }: { topic: string }) => `Tell me about ${topic}`,
      );
      this.catalog.addResource(
        {
          uri: `bench://items/${index}`,
          name: `item_${index}`,
          mimeType: 'text/plain',
          description: `Catalog filler resource ${index}`,
        },
        () => `item ${index}`,
      );
    }
  }
}
