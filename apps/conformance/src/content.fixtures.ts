import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpTool, McpToolError, audio, embeddedResource, image, text } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';
import { RED_PIXEL_PNG, SILENT_WAV } from './fixture-media';

/** Tools the suite calls to check each kind of content and tool errors. */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class ContentFixtures {
  @McpTool({ name: 'test_simple_text', description: 'Returns simple text' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @McpTool({ name: 'test_image_content', description: 'Returns an image' })
  imageContent() {
    return image(RED_PIXEL_PNG, 'image/png');
  }

  @McpTool({ name: 'test_audio_content', description: 'Returns audio' })
  audioContent() {
    return audio(SILENT_WAV, 'audio/wav');
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Returns an embedded resource' })
  embeddedResource() {
    return embeddedResource({
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    });
  }

  @McpTool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' })
  multipleContentTypes() {
    return [
      text('Multiple content types test:'),
      image(RED_PIXEL_PNG, 'image/png'),
      embeddedResource({
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: '{"test":"data","value":123}',
      }),
    ];
  }

  @McpTool({ name: 'test_error_handling', description: 'Always fails' })
  errorHandling(): never {
    throw new McpToolError('This tool intentionally returns an error for testing');
  }
}
