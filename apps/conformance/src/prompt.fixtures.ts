import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpPrompt, embeddedResource, image, userMessage } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';
import { RED_PIXEL_PNG } from './fixture-media';

const CITIES = ['paris', 'park', 'party', 'pasadena', 'berlin', 'bern'];

/** Prompts the suite gets, with their arguments and content kinds. */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class PromptFixtures {
  @McpPrompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    args: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    complete: { arg1: (typed) => CITIES.filter((city) => city.startsWith(typed)) },
  })
  withArguments(@McpArgs() { arg1, arg2 }: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt embedding a resource',
    args: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  withEmbeddedResource(@McpArgs('resourceUri') resourceUri: string) {
    return [
      userMessage(
        embeddedResource({ uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' }),
      ),
      userMessage('Please process the embedded resource above.'),
    ];
  }

  @McpPrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  withImage() {
    return [userMessage(image(RED_PIXEL_PNG, 'image/png')), userMessage('Please analyze the image above.')];
  }
}
