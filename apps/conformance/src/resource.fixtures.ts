import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpResource, McpResourceTemplate } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';
import { RED_PIXEL_PNG } from './fixture-media';

/** Resources the suite lists, reads and subscribes to. */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class ResourceFixtures {
  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    description: 'A static text resource',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static binary resource',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(RED_PIXEL_PNG, 'base64');
  }

  @McpResource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource clients subscribe to',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content';
  }

  @McpResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data for an id',
    mimeType: 'application/json',
    complete: { id: (typed) => ['123', '456', '789'].filter((id) => id.startsWith(typed)) },
  })
  templateData(@McpArgs('id') id: string) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }
}
