import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { fakeCliIo } from '../testing/fake-cli-io';
import { ResultPrinter } from './result-printer';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const WAV = Buffer.from('RIFF0000WAVE');

function printer(output: 'text' | 'json', outDir?: string) {
  const io = fakeCliIo();
  return { io, print: new ResultPrinter(io, output, outDir, 'render_chart') };
}

describe('ResultPrinter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'result-printer-')), 'out');
  });
  afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

  describe('a tool result, as text', () => {
    it('writes each text block to stdout on a line of its own', async () => {
      const { io, print } = printer('text');
      await print.toolResult({
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second\n' },
          { type: 'resource_link', uri: 'kb://articles/7', name: 'VAT invoices' },
          { type: 'resource_link', uri: 'kb://articles/8', name: '' },
        ],
        structuredContent: { ignored: true },
      });
      expect(io.out).toBe('first\nsecond\nkb://articles/7 (VAT invoices)\nkb://articles/8\n');
      expect(io.err).toBe('');
    });

    it('writes an isError result to stderr, nothing to stdout', async () => {
      const { io, print } = printer('text');
      await print.toolResult({ content: [{ type: 'text', text: 'Ticket T-9 is already closed.' }], isError: true });
      expect(io.out).toBe('');
      expect(io.err).toBe('Ticket T-9 is already closed.\n');
    });

    it('prints the structured content as JSON when there is no content block', async () => {
      const { io, print } = printer('text');
      await print.toolResult({ content: [], structuredContent: { count: 2 } });
      expect(io.out).toBe('{\n  "count": 2\n}\n');
    });

    it('names images, audio and embedded resources on stderr, with how to save them, without --out-dir', async () => {
      const { io, print } = printer('text');
      await print.toolResult({
        content: [
          { type: 'text', text: 'a chart:' },
          { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
          { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'report://r/t.csv', mimeType: 'text/csv', text: 'a,b\n' } },
          { type: 'resource', resource: { uri: 'report://r/t.bin', blob: PNG.toString('base64') } },
        ],
      });
      expect(io.out).toBe('a chart:\n');
      expect(io.err).toBe(
        '[image, image/png, 8 bytes: pass --out-dir <dir> to save it]\n' +
          '[audio, audio/wav, 12 bytes: pass --out-dir <dir> to save it]\n' +
          '[resource report://r/t.csv, text/csv, 4 bytes: pass --out-dir <dir> to save it]\n' +
          '[resource report://r/t.bin, 8 bytes: pass --out-dir <dir> to save it]\n',
      );
    });

    it('saves them in --out-dir, the text still on stdout, each saved path on stderr', async () => {
      const { io, print } = printer('text', dir);
      await print.toolResult({
        content: [
          { type: 'text', text: 'a chart:' },
          { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
          { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'report://r/t.csv', mimeType: 'text/csv', text: 'a,b\n' } },
        ],
      });
      expect(io.out).toBe('a chart:\n');
      const png = join(dir, 'render_chart-1.png');
      const wav = join(dir, 'render_chart-2.wav');
      const csv = join(dir, 't.csv');
      expect(io.err).toBe(`saved ${png}\nsaved ${wav}\nsaved ${csv}\n`);
      expect(await readFile(png)).toEqual(PNG);
      expect(await readFile(wav)).toEqual(WAV);
      await expect(readFile(csv, 'utf8')).resolves.toBe('a,b\n');
    });
  });

  describe('a tool result, with --output json', () => {
    it('prints the structured content only', async () => {
      const { io, print } = printer('json');
      await print.toolResult({
        content: [{ type: 'text', text: '{"count":2}' }],
        structuredContent: { count: 2, tickets: [] },
      });
      expect(JSON.parse(io.out)).toEqual({ count: 2, tickets: [] });
      expect(io.err).toBe('');
    });

    it('prints the whole result when it has no structured content, an error too (on stdout, for the script)', async () => {
      const result: CallToolResult = { content: [{ type: 'text', text: 'No such ticket.' }], isError: true };
      const { io, print } = printer('json');
      await print.toolResult(result);
      expect(JSON.parse(io.out)).toEqual(result);
      expect(io.err).toBe('');
    });

    it('saves images in --out-dir too', async () => {
      const result: CallToolResult = {
        content: [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }],
      };
      const { io, print } = printer('json', dir);
      await print.toolResult(result);
      expect(JSON.parse(io.out)).toEqual(result);
      expect(io.err).toBe(`saved ${join(dir, 'render_chart-1.png')}\n`);
      expect(await readdir(dir)).toEqual(['render_chart-1.png']);
    });
  });

  describe('a prompt', () => {
    const result: GetPromptResult = {
      description: 'Triage a ticket',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Triage T-1.' } },
        { role: 'assistant', content: { type: 'text', text: 'Looking.\n' } },
        { role: 'user', content: { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' } },
      ],
    };

    it('prints its description and each message under its role', async () => {
      const { io, print } = printer('text');
      await print.promptResult(result);
      expect(io.out).toBe('# Triage a ticket\n\n[user]\nTriage T-1.\n\n[assistant]\nLooking.\n\n[user]\n\n');
      expect(io.err).toBe('[image, image/png, 8 bytes: pass --out-dir <dir> to save it]\n');
    });

    it('prints the whole result with --output json', async () => {
      const { io, print } = printer('json');
      await print.promptResult(result);
      expect(JSON.parse(io.out)).toEqual(result);
    });
  });

  describe('a resource', () => {
    const result: ReadResourceResult = {
      contents: [
        { uri: 'kb://articles/7', mimeType: 'text/markdown', text: '# VAT invoices' },
        { uri: 'kb://files/logo', mimeType: 'image/png', blob: PNG.toString('base64') },
      ],
    };

    it('prints text contents and names binary ones, with how to save them', async () => {
      const { io, print } = printer('text');
      await print.resourceResult(result);
      expect(io.out).toBe('# VAT invoices\n');
      expect(io.err).toBe('[resource kb://files/logo, image/png, 8 bytes: pass --out-dir <dir> to save it]\n');
    });

    it('saves every contents in --out-dir, named from its URI', async () => {
      const { io, print } = printer('text', dir);
      await print.resourceResult(result);
      expect(io.out).toBe('');
      expect(io.err).toBe(`saved ${join(dir, '7.md')}\nsaved ${join(dir, 'logo.png')}\n`);
      expect(await readFile(join(dir, 'logo.png'))).toEqual(PNG);
      await expect(readFile(join(dir, '7.md'), 'utf8')).resolves.toBe('# VAT invoices');
    });

    it('prints the whole result with --output json, and nothing on stderr (the JSON holds the blob)', async () => {
      const { io, print } = printer('json');
      await print.resourceResult(result);
      expect(JSON.parse(io.out)).toEqual(result);
      expect(io.err).toBe('');
    });

    it('prints the whole result with --output json, binaries saved in --out-dir', async () => {
      const { io, print } = printer('json', dir);
      await print.resourceResult(result);
      expect(JSON.parse(io.out)).toEqual(result);
      expect(io.err).toBe(`saved ${join(dir, 'logo.png')}\n`);
    });
  });
});
