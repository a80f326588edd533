import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../command-line/cli-io';
import { ContentFiles } from './content-files';

type ResourceContents = ReadResourceResult['contents'][number];

/**
 * Prints results for a person or a script: text as it is, structured content as JSON with
 * `--output json`, and what is not text (images, audio, embedded resources) written to files
 * with `--out-dir`, or named on stderr with how to save it.
 */
export class ResultPrinter {
  private readonly files: ContentFiles | undefined;

  constructor(
    private readonly io: CliIo,
    private readonly output: 'text' | 'json',
    outDir: string | undefined,
    name: string,
  ) {
    this.files = outDir === undefined ? undefined : new ContentFiles(outDir, name);
  }

  /** A tool's result: an error's text goes to stderr. */
  async toolResult(result: CallToolResult): Promise<void> {
    if (this.output === 'json') {
      await this.saveBinaries(result.content);
      this.json(result.structuredContent ?? result);
      return;
    }
    const out = result.isError ? this.io.stderr : this.io.stdout;
    for (const block of result.content) await this.block(block, out.write.bind(out));
    if (result.content.length === 0 && result.structuredContent !== undefined)
      out.write(`${JSON.stringify(result.structuredContent, null, 2)}\n`);
  }

  async promptResult(result: GetPromptResult): Promise<void> {
    if (this.output === 'json') return this.json(result);
    if (result.description) this.io.stdout.write(`# ${result.description}\n\n`);
    for (const message of result.messages) {
      this.io.stdout.write(`[${message.role}]\n`);
      await this.block(message.content as ContentBlock, (text) => this.io.stdout.write(text));
      this.io.stdout.write('\n');
    }
  }

  async resourceResult(result: ReadResourceResult): Promise<void> {
    if (this.output === 'json') {
      for (const contents of result.contents) if ('blob' in contents) await this.saveContents(contents);
      return this.json(result);
    }
    for (const contents of result.contents) {
      if (this.files) await this.saveContents(contents);
      else if ('text' in contents) this.io.stdout.write(endLine(contents.text));
      else this.unsaved(`resource ${contents.uri}`, contents.mimeType, bytesOf(contents));
    }
  }

  json(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  private async block(block: ContentBlock, write: (text: string) => void): Promise<void> {
    switch (block.type) {
      case 'text':
        write(endLine(block.text));
        return;
      case 'image':
      case 'audio':
        if (this.files) this.saved(await this.files.write(Buffer.from(block.data, 'base64'), block.mimeType));
        else this.unsaved(block.type, block.mimeType, Buffer.byteLength(block.data, 'base64'));
        return;
      case 'resource':
        if (this.files) await this.saveContents(block.resource);
        else this.unsaved(`resource ${block.resource.uri}`, block.resource.mimeType, bytesOf(block.resource));
        return;
      case 'resource_link':
        write(`${block.uri}${block.name ? ` (${block.name})` : ''}\n`);
        return;
    }
  }

  private async saveBinaries(content: readonly ContentBlock[]): Promise<void> {
    if (!this.files) return;
    for (const block of content) {
      if (block.type === 'image' || block.type === 'audio')
        this.saved(await this.files.write(Buffer.from(block.data, 'base64'), block.mimeType));
      else if (block.type === 'resource') await this.saveContents(block.resource);
    }
  }

  private async saveContents(contents: ResourceContents): Promise<void> {
    if (!this.files) return this.unsaved(`resource ${contents.uri}`, contents.mimeType, bytesOf(contents));
    const data = 'text' in contents ? contents.text : Buffer.from(contents.blob, 'base64');
    this.saved(await this.files.write(data, contents.mimeType, contents.uri));
  }

  private saved(path: string): void {
    this.io.stderr.write(`saved ${path}\n`);
  }

  private unsaved(what: string, mimeType: string | undefined, bytes: number): void {
    this.io.stderr.write(
      `[${what}${mimeType ? `, ${mimeType}` : ''}, ${bytes} bytes: pass --out-dir <dir> to save it]\n`,
    );
  }
}

/** The size of a resource's contents, in bytes. */
function bytesOf(contents: ResourceContents): number {
  return 'text' in contents ? Buffer.byteLength(contents.text) : Buffer.byteLength(String(contents.blob), 'base64');
}

const endLine = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
