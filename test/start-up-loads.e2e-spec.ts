import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './support/free-port';
import { waitForAsync } from './support/wait-for';

const ROOT = join(__dirname, '..');

/** What one start of an app loaded: npm packages, and the files of nest-mcp-host's bundle that ran. */
interface Loaded {
  packages: string[];
  ran: string[];
}

/** Starts `app` (under test/bench) with the preload, has its first call answered, stops it; what it loaded. */
async function startAndCall(app: string): Promise<Loaded> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(__dirname, 'support', 'loaded-packages.mjs')).href,
      join(ROOT, 'test', 'bench', app),
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
  const line = (prefix: string): unknown => {
    const found = stderr.split('\n').find((text) => text.startsWith(prefix));
    if (!found) throw new Error(`the app printed no ${prefix.trim()} line: ${stderr}`);
    return JSON.parse(found.slice(prefix.length));
  };
  return { packages: line('LOADED ') as string[], ran: line('RAN ') as string[] };
}

/**
 * The README's one-tool app (test/bench/readme-app-server.cjs, the start-up benchmark's subject, as
 * TypeScript compiles it for Node; readme-app-server.mjs is the same app as an ES module) started
 * as an adopter starts it, its first call answered, and what it loaded by then: nothing its options
 * leave off is loaded, though every package here is installed, and of the features its options
 * leave off, no code runs but their options' validation.
 */
describe('what the README app loads at start-up', () => {
  let loaded: Loaded;
  let esm: Loaded;

  beforeAll(async () => {
    [loaded, esm] = await Promise.all([startAndCall('readme-app-server.cjs'), startAndCall('readme-app-server.mjs')]);
  });

  it('loads what it uses: Nest, its HTTP platform, the DTO validation, the health probes', () => {
    expect(loaded.packages).toEqual(
      expect.arrayContaining(['@nestjs/core', '@nestjs/platform-express', 'class-validator', '@nestjs/terminus']),
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
    ['prom-client', 'nothing has read its metrics yet: the registry is made with the first scrape'],
  ])('does not load %s: %s', (name) => {
    expect(loaded.packages).not.toContain(name);
    expect(esm.packages).not.toContain(name);
  });

  /** The files of `library` (relative to its src/, without .js) whose code ran. */
  const ranOf = (library: string): string[] =>
    loaded.ran.flatMap((file) => {
      const match = new RegExp(`^dist/${library}/src/(.+)\\.js$`).exec(file);
      return match ? [match[1]] : [];
    });

  it('runs the code of what it uses: the module, the engine, tools, the transport', () => {
    expect(loaded.ran).toEqual(
      expect.arrayContaining([
        'dist/hosting/src/mcp.module.js',
        'dist/protocol/src/dispatch/mcp.dispatcher.js',
        'dist/tools/src/tool.methods.js',
        'dist/hosting/src/http/streamable-http.handler.js',
      ]),
    );
  });

  it.each([
    ['gateway', ['index', 'options/gateway.options', 'options/upstream.options'], 'no `gateway` option'],
    ['virtual-servers', ['index', 'options/virtual-servers.options'], 'no `virtualServers` option'],
    ['tool-search', ['index', 'tool-search.options'], 'no `toolSearch` option'],
    [
      'authorization-server',
      // The options' validation, in its parts: the client options and the redirect and host rules they check with.
      [
        'index',
        'options/authorization-server.options',
        'options/client-options',
        'client-rules/redirect-uris',
        'client-rules/trusted-hosts',
      ],
      'no `authorizationServer` option',
    ],
    ['downstream-identity', ['index', 'options/downstream.options'], 'no `downstream` option, no upstream or API'],
    ['governance', ['index', 'governance.options', 'governance.token'], 'no `governance` option'],
    [
      'rest',
      [
        'index',
        'rest.providers',
        'options/rest.options',
        'options/rest-api.options',
        'options/rest-confirm.options',
        'options/route-rules.options',
        'discovery/rest-bridge.explorer',
        'discovery/route-explorer',
        'discovery/route-exposure',
        'discovery/nest-route',
      ],
      'no route chosen: the bridge looks for one and loads nothing more',
    ],
    ['cluster', [], 'no `cluster` option'],
    ['cli', [], 'not a command line'],
  ])('runs of %s no more than %j: %s', (library, allowed) => {
    expect(ranOf(library).filter((file) => !allowed.includes(file))).toEqual([]);
  });
});
