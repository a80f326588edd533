import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './support/free-port';
import { waitForAsync } from './support/wait-for';

const ROOT = join(__dirname, '..');

/**
 * The README's one-tool app (test/bench/readme-app-server.mjs, the start-up benchmark's subject)
 * started as an adopter starts it, its first call answered, and the packages it loaded by then:
 * nothing its options leave off is loaded, though every one of these is installed here.
 */
describe('what the README app loads at start-up', () => {
  let loaded: string[];

  beforeAll(async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(__dirname, 'support', 'loaded-packages.mjs')).href,
        join(ROOT, 'test', 'bench', 'readme-app-server.mjs'),
      ],
      { cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let answer = '';
    try {
      await waitForAsync(async () => {
        if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}): ${stderr}`);
        const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'add',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'add',
              arguments: { a: 1, b: 2 },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
                'io.modelcontextprotocol/clientInfo': { name: 'start-up', version: '1' },
              },
            },
          }),
        }).catch(() => undefined);
        answer = response ? await response.text() : '';
        return response !== undefined;
      }, 20_000);
      expect(answer).toContain('"text":"3"');
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    const line = stderr.split('\n').find((text) => text.startsWith('LOADED '));
    if (!line) throw new Error(`the app printed no package list: ${stderr}`);
    loaded = JSON.parse(line.slice('LOADED '.length)) as string[];
  });

  it('loads what it uses: Nest, its HTTP platform, the DTO validation, the health probes and metrics', () => {
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@nestjs/core',
        '@nestjs/platform-express',
        'class-validator',
        '@nestjs/terminus',
        'prom-client',
      ]),
    );
  });

  it.each([
    ['@nestjs/swagger', 'the health probes document nothing in an OpenAPI document (terminus loads it by default)'],
    ['@nestjs/platform-fastify', 'the app runs on Express'],
    ['pg', 'no PostgreSQL store is configured'],
    ['ioredis', 'no cluster backplane is configured'],
    ['jose', 'no OAuth: API keys or no credential'],
    ['openid-client', 'no authorization server, no connected accounts'],
    ['@bufbuild/cel', 'no governance policies'],
    ['ajv', 'no JSON Schema tool: its schema is a DTO'],
    ['zod', 'no zod schema'],
    ['@modelcontextprotocol/sdk', 'the host speaks MCP itself; the SDK is for clients and upstreams'],
    ['undici', 'no upstream, no REST API'],
  ])('does not load %s: %s', (name) => {
    expect(loaded).not.toContain(name);
  });
});
