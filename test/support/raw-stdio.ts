import { PassThrough } from 'node:stream';
import { Test } from '@nestjs/testing';
import { StdioTransport, type McpModuleOptions } from '#libs/hosting';
import { FixtureModule } from '../fixtures/fixture.module';

/**
 * The fixture app over stdio, driven by hand: write raw lines to `input`, read every message the
 * host wrote, parsed, in `lines`.
 */
export async function rawStdio(
  options: Partial<McpModuleOptions> = {},
): Promise<{ input: PassThrough; lines: unknown[]; close: () => Promise<void> }> {
  const moduleRef = await Test.createTestingModule({
    imports: [FixtureModule.register({ http: false, ...options })],
  }).compile();
  await moduleRef.init();
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: unknown[] = [];
  output.setEncoding('utf8');
  output.on('data', (chunk: string) =>
    chunk
      .split('\n')
      .filter(Boolean)
      .forEach((line) => lines.push(JSON.parse(line))),
  );
  void moduleRef.get(StdioTransport).connect(input, output);
  return { input, lines, close: async () => (input.end(), await moduleRef.close()) };
}
