import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PLATFORMS, type TestPlatform } from './support/fixture-app';
import { freePort } from './support/free-port';
import { waitForAsync } from './support/wait-for';

const ROOT = join(__dirname, '..');

/** The adopter app's HTTP entry point on each platform. */
const ENTRIES: Record<TestPlatform, string> = { express: 'dist/main.js', fastify: 'dist/main-fastify.js' };

/**
 * The package as an adopter gets it: the tarball `npm run pack` writes (packed from libs/dist,
 * which `npm run build` builds before the e2e tests), installed from the registry into a fresh
 * Nest 12 app with the tsconfig `nest new` generates (plus `strict`), the README's example
 * compiled verbatim, then served over Streamable HTTP (on Express and on Fastify) and stdio to the
 * official SDK client. Also: one copy of Nest (the package's Nest is a peer), no `pg`/`ioredis`
 * behind the root entry, and no Fastify code in an Express app nor Express code in a Fastify app.
 */
describe('an app that installs the packed nest-mcp-host', () => {
  let app: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'adopter-'));
    const tarball = pack(join(app, 'packs'));
    writeAdopterApp(app, tarball);
    run(npm(), ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app);
  }, 600_000);

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it("installs one copy of @nestjs/core: the package takes the app's Nest (a peer), never its own", () => {
    expect(copiesOf('@nestjs/core', join(app, 'node_modules'))).toEqual([join(app, 'node_modules', '@nestjs', 'core')]);
    const listed = run(npm(), ['ls', '@nestjs/core', '--all', '--parseable'], app).trim().split('\n');
    // The app's own dependency and the package's peer, deduped to one path.
    expect(new Set(listed)).toEqual(new Set([join(app, 'node_modules', '@nestjs', 'core')]));
    const resolved = node(
      "const { dirname } = require('node:path');" +
        "const fromPackage = require.resolve('@nestjs/core', { paths: [dirname(require.resolve('nest-mcp-host'))] });" +
        "console.log(fromPackage === require.resolve('@nestjs/core'));",
      app,
    );
    expect(resolved.trim()).toBe('true');
  });

  it("type-checks (strict, Nest's CommonJS defaults) and builds the README's example verbatim", () => {
    run(tsc(app), ['--noEmit', '-p', 'tsconfig.json'], app);
    run(tsc(app), ['-p', 'tsconfig.build.json'], app);
    expect(existsSync(join(app, 'dist', 'main.js'))).toBe(true);
  }, 120_000);

  it('type-checks the entries under the old `moduleResolution: node` too (internal imports made relative, typesVersions)', () => {
    run(tsc(app), ['--noEmit', '-p', 'tsconfig.node10.json'], app);
  }, 120_000);

  it.each(PLATFORMS)(
    'serves the tool over Streamable HTTP to the SDK client on %s, and its health, metrics and dashboard',
    async (platform) => {
      const port = await freePort();
      const host = spawn(process.execPath, [ENTRIES[platform]], {
        cwd: app,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(host);
      let log = '';
      host.stdout!.on('data', (chunk) => (log += chunk));
      host.stderr!.on('data', (chunk) => (log += chunk));
      const base = `http://127.0.0.1:${port}`;
      const live = () =>
        fetch(`${base}/health/live`).then(
          (response) => response.ok,
          () => false,
        );
      await waitForAsync(async () => host.exitCode !== null || (await live()), 30_000).catch(() => undefined);
      if (!(await live())) throw new Error(`the adopter app did not start:\n${log.slice(-3_000)}`);

      const client = new Client({ name: 'adopter-http', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      expect(client.getServerVersion()).toEqual({ name: 'my-host', version: '1.0.0' });
      const [tool] = (await client.listTools()).tools;
      expect(tool).toMatchObject({ name: 'add', description: 'Adds two numbers', annotations: { readOnlyHint: true } });
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      });
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({
        content: [{ type: 'text', text: '42' }],
      });
      const refused = (await client.callTool({ name: 'add', arguments: { a: 'two', b: 40 } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      await client.close();

      // The operations routes, as a person or Prometheus reaches them (authentication off: loopback).
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('mcp_requests_total{method="tools/call",kind="tool",target="add"');
      const page = await fetch(`${base}/admin`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script src="/admin/app.js" defer></script>');
      const stats = await fetch(`${base}/admin/api/stats`);
      expect(stats.status).toBe(200);
      expect(await stats.json()).toMatchObject({ entries: [{ kind: 'tool', name: 'add', calls: 2 }] });
      const ready = await fetch(`${base}/health/ready`);
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({
        status: 200,
        body: { status: 'ok', info: { mcp: { status: 'up', phase: 'ready' } } },
      });
      // Still serving after all of them: none ended the process.
      expect(await live()).toBe(true);
      expect(host.exitCode).toBeNull();
      host.kill('SIGTERM');
    },
    60_000,
  );

  it.each(PLATFORMS)("loads no other platform's code in an app on %s", (platform) => {
    const loaded = node(
      `const { NestFactory } = require('@nestjs/core');` +
        `const { AppModule } = require('./dist/app.module');` +
        (platform === 'fastify'
          ? `const { FastifyAdapter } = require('@nestjs/platform-fastify');` +
            `const create = () => NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });`
          : `const create = () => NestFactory.create(AppModule, { logger: false });`) +
        `create().then(async (app) => {` +
        `  await app.listen(0, '127.0.0.1');` +
        `  const files = Object.keys(require.cache);` +
        `  console.log(JSON.stringify(['express', 'fastify'].filter((name) => files.some((file) => file.includes('/node_modules/' + name + '/')))));` +
        `  await app.close();` +
        `});`,
      app,
    );
    const names = JSON.parse(loaded.trim().split('\n').pop()!) as string[];
    // Its own platform's framework is seen (the check can fail), the other's is not.
    expect(names).toEqual([platform]);
  });

  it('serves the tool over stdio to the SDK client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/main-stdio.js'],
      cwd: app,
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk) => (log += chunk));
    const client = new Client({ name: 'adopter-stdio', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toEqual({ name: 'my-host-stdio', version: '1.0.0' });
      expect(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toEqual({
        content: [{ type: 'text', text: '42' }],
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}; the stdio host logged:\n${log.slice(-3_000)}`);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('loads neither pg, ioredis, zod nor prom-client from the root entry; the subpath entries load theirs', () => {
    // Every name of the entry read, as an ES module's import does (a name is loaded when first read).
    const loaded = (entry: string) =>
      JSON.parse(
        node(
          `const entry = require(${JSON.stringify(entry)}); for (const name of Object.keys(entry)) void entry[name];` +
            'const files = Object.keys(require.cache);' +
            "console.log(JSON.stringify(['pg', 'ioredis', 'zod', 'prom-client'].filter((name) => files.some((file) => file.includes(`/node_modules/${name}/`)))));",
          app,
        ),
      ) as string[];
    expect(loaded('nest-mcp-host')).toEqual([]);
    // The same check sees them when they are loaded: it can fail.
    expect(loaded('nest-mcp-host/postgres')).toEqual(['pg']);
    expect(loaded('nest-mcp-host/redis')).toEqual(['ioredis']);
  });
});

/** `npm run pack` of the built libs (libs/dist), into `destination`; the tarball's path. */
function pack(destination: string): string {
  if (!existsSync(join(ROOT, 'libs', 'dist', 'index.d.ts')))
    throw new Error('libs/dist is not built: run `npm run build` first');
  const out = run(process.execPath, [join(ROOT, 'libs', 'scripts', 'pack.mjs'), '--no-build', destination], ROOT);
  return out.trim().split('\n').pop()!;
}

/**
 * A new Nest 12 app: package.json (the tarball, Nest and its companions at the versions of this
 * repository's lockfile, from the registry), the tsconfig of `nest new` (Nest 12, CommonJS) with
 * `strict`, the README's example files verbatim, and entry points for HTTP and stdio.
 */
function writeAdopterApp(app: string, tarball: string): void {
  const version = (name: string) =>
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
  const from = (names: string[]) => Object.fromEntries(names.map((name) => [name, version(name)]));
  const pkg = {
    name: 'adopter-app',
    version: '1.0.0',
    private: true,
    dependencies: {
      'nest-mcp-host': `file:${join('packs', basename(tarball))}`,
      ...from(['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/throttler', '@nestjs/terminus']),
      // The other platform the package supports (an optional peer), for the app's Fastify entry.
      ...from(['@nestjs/platform-fastify']),
      ...from(['reflect-metadata', 'rxjs', 'class-validator', 'class-transformer']),
      // Optional peers, installed to show that only their subpath entries load them. (zod, the
      // third, comes with @modelcontextprotocol/sdk, a dependency of the package.)
      ...from(['pg', 'ioredis']),
    },
    devDependencies: from(['typescript', '@types/node']),
  };
  write(app, 'package.json', JSON.stringify(pkg, null, 2));
  // `nest new` (nestjs/schematics 12, src/lib/application/files/ts/tsconfig.json), strict, without jest types.
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    resolvePackageJsonExports: true,
    esModuleInterop: true,
    isolatedModules: true,
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2023',
    types: ['node'],
    sourceMap: true,
    outDir: './dist',
    incremental: true,
    skipLibCheck: true,
    strict: true,
    strictPropertyInitialization: false,
  };
  write(app, 'tsconfig.json', JSON.stringify({ compilerOptions, include: ['src'] }, null, 2));
  write(
    app,
    'tsconfig.build.json',
    JSON.stringify(
      { extends: './tsconfig.json', include: ['src'], exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'] },
      null,
      2,
    ),
  );
  // The tsconfig of `nest new` before Nest 11: CommonJS with the node10 resolution (no "exports").
  write(
    app,
    'tsconfig.node10.json',
    JSON.stringify(
      {
        compilerOptions: {
          module: 'commonjs',
          moduleResolution: 'node',
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          allowSyntheticDefaultImports: true,
          target: 'ES2021',
          types: ['node'],
          skipLibCheck: true,
          strict: true,
          strictPropertyInitialization: false,
          noEmit: true,
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );

  const examples = readmeExamples();
  expect([...examples.keys()].sort()).toEqual(['src/app.module.ts', 'src/main-fastify.ts', 'src/math.tools.ts']);
  for (const [path, code] of examples) write(app, path, code);
  write(
    app,
    'src/main.ts',
    `import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}
void bootstrap();
`,
  );
  write(
    app,
    'src/main-stdio.ts',
    `import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpModule, StderrConsoleLogger } from 'nest-mcp-host';
import { MathTools } from './math.tools';

@Module({
  imports: [McpModule.forRoot({ name: 'my-host-stdio', version: '1.0.0', http: false, stdio: true, health: false })],
  providers: [MathTools],
})
class StdioModule {}

async function bootstrap() {
  const app = await NestFactory.createApplicationContext(StdioModule, { logger: new StderrConsoleLogger() });
  app.enableShutdownHooks();
  process.stdin.once('end', () => void app.close());
}
void bootstrap();
`,
  );
  // Types that only resolve through the package's internal imports and its subpath entries: an
  // unresolved one would be \`any\`, and the expected errors would not come.
  write(
    app,
    'src/typing-checks.ts',
    `import { McpModule, type McpAuditOptions } from 'nest-mcp-host';
import { PostgresAuditSink, type PostgresAuditSinkOptions } from 'nest-mcp-host/postgres';
import { RedisThrottlerStorage } from 'nest-mcp-host/redis';

export function typingChecks(options: PostgresAuditSinkOptions): unknown[] {
  // @ts-expect-error: no such auth mode (McpAuthOptions comes through the package's internal imports)
  const module = McpModule.forRoot({ name: 'typed', version: '1.0.0', auth: { mode: 'password' } });
  const audit: McpAuditOptions = { sink: new PostgresAuditSink(options) };
  // @ts-expect-error: the storage takes a Redis URL or client, not a number
  const redis = new RedisThrottlerStorage(6379);
  return [module, audit, redis];
}
`,
  );
}

/** The README's code blocks marked `<!-- adopter-example: <path> … -->`, by path. */
function readmeExamples(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, path, code] of readme.matchAll(/<!-- adopter-example: (\S+)[^>]*-->\n```ts\n([\s\S]*?)```/g))
    blocks.set(path, code);
  return blocks;
}

/** Every installed copy of package `name` under a node_modules tree. */
function copiesOf(name: string, modules: string): string[] {
  if (!existsSync(modules)) return [];
  const found = existsSync(join(modules, name, 'package.json')) ? [join(modules, name)] : [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const packages = entry.name.startsWith('@')
      ? readdirSync(join(modules, entry.name), { withFileTypes: true })
          .filter((scoped) => scoped.isDirectory())
          .map((scoped) => join(modules, entry.name, scoped.name))
      : [join(modules, entry.name)];
    for (const dir of packages) found.push(...copiesOf(name, join(dir, 'node_modules')));
  }
  return found;
}

function write(app: string, path: string, text: string): void {
  mkdirSync(dirname(join(app, path)), { recursive: true });
  writeFileSync(join(app, path), text);
}

/** The npm that runs the tests (npm_execpath under `npm test`), else the one on PATH. */
function npm(): string {
  const cli = process.env.npm_execpath;
  return cli && /\.c?js$/.test(cli) ? cli : 'npm';
}

/** The adopter's own TypeScript (5.9, from the registry), not this repository's. */
function tsc(app: string): string {
  return join(app, 'node_modules', 'typescript', 'bin', 'tsc');
}

function node(script: string, cwd: string): string {
  return run(process.execPath, ['-e', script], cwd);
}

/**
 * Runs a command to completion in `cwd`; its stdout, or an error with its output. npm's
 * variables of the `npm test` that runs this spec are left out: the adopter's npm reads its own
 * project (the user and global npmrc, with the registry and cache, still apply).
 */
function run(command: string, args: string[], cwd: string): string {
  const [file, argv] =
    /\.c?js$/.test(command) || command.endsWith('/tsc') ? [process.execPath, [command, ...args]] : [command, args];
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)),
  );
  const result = spawnSync(file, argv, { cwd, encoding: 'utf8', env: { ...env, CI: 'true' }, maxBuffer: 64 * 2 ** 20 });
  if (result.status !== 0) {
    throw new Error(
      `${[command, ...args].join(' ')} failed (${result.status ?? result.signal}) in ${cwd}:\n${result.stdout.slice(-4_000)}\n${result.stderr.slice(-4_000)}`,
    );
  }
  return result.stdout;
}
