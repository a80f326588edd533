import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DockerfileEmulator } from './support/dockerfile-emulator';
import { freePort } from './support/free-port';
import { waitForAsync } from './support/wait-for';

const ROOT = join(__dirname, '..');
const outs: string[] = [];

/** A directory for one build's stages, removed after the tests (a build holds ~270 MB of node_modules). */
function buildDirectory(): string {
  const out = mkdtempSync(join(tmpdir(), 'docker-image-'));
  outs.push(out);
  // The image's USER must reach its files, as in a container, where the stages are the whole tree.
  chmodSync(out, 0o755);
  return out;
}

afterAll(() => {
  for (const out of outs) rmSync(out, { recursive: true, force: true });
});

/**
 * The production image, built from docker/Dockerfile and started, as far as this machine allows
 * without a container engine (none runs here, and no registry serves the base image): every COPY
 * takes exactly the files it names from the build context or the build stage, the build stage's
 * RUN commands install and build in a directory of their own, and the runtime stage's CMD serves
 * the support desk with the image's environment, until its HEALTHCHECK passes and a real client
 * lists and calls tools. A file the Dockerfile forgets to copy fails here, not in production.
 * Run as root (as CI is), COPY --chown gives files away and the CMD runs as the image's USER, so
 * a file that user cannot write (the audit volume) fails here too.
 */
describe('the Docker image (docker/Dockerfile)', () => {
  it('builds from exactly the files it copies, starts, passes its health check and serves MCP', async () => {
    const out = buildDirectory();
    // The npm cache of this machine stands in for the registry's: the same packages, sooner.
    const emulator = new DockerfileEmulator(ROOT, out, {
      npm_config_prefer_offline: 'true',
      npm_config_loglevel: 'error',
    });
    const runtime = emulator.build(readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8'));
    // Multi-stage: the runtime has only what it copies from the build stage.
    expect(emulator.stages.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    expect(runtime.cmd).toEqual(['node', 'dist/src/main.js']);
    expect(runtime.user).toBe('node');
    expect(runtime.ids).toEqual({ uid: 1000, gid: 1000 });
    expect(runtime.volumes).toEqual(['/app/audit', '/app/state']);
    // Production dependencies only: no TypeScript, no test tools in the image.
    expect(spawnSync('ls', [emulator.hostPath(runtime, 'node_modules/typescript')]).status).not.toBe(0);

    const port = await freePort();
    // The image's environment, its paths under the stage's directory, on loopback for the test.
    const env: Record<string, string> = Object.fromEntries(
      Object.entries(runtime.env).map(([key, value]) => [
        key,
        value.startsWith('/') ? emulator.hostPath(runtime, value) : value,
      ]),
    );
    Object.assign(env, { HOST: '127.0.0.1', PORT: String(port) });
    const [command, ...args] = runtime.cmd!;
    const host = spawn(command === 'node' ? process.execPath : command, args, {
      cwd: emulator.hostPath(runtime, runtime.workdir),
      env: { PATH: process.env.PATH!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // As the image's USER where this process may switch to it.
      ...(emulator.owns ? runtime.ids : {}),
    });
    let log = '';
    host.stdout.on('data', (chunk) => (log += chunk));
    host.stderr.on('data', (chunk) => (log += chunk));
    const exited = new Promise((resolve) => host.once('exit', resolve));
    try {
      const healthy = () =>
        spawnSync('sh', ['-c', runtime.healthcheck!], { env: { ...process.env, PORT: String(port) } }).status === 0;
      await waitForAsync(async () => healthy() || host.exitCode !== null, 30_000).catch(() => undefined);
      if (!healthy()) throw new Error(`the image's HEALTHCHECK never passed; the host logged:\n${log.slice(-3_000)}`);

      const client = new Client({ name: 'image-check', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { 'X-API-Key': 'desk-demo-admin-key' } },
        }),
      );
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('search_tickets');
      const found = await client.callTool({ name: 'search_tickets', arguments: { status: 'open', limit: 2 } });
      expect(found.structuredContent).toMatchObject({ count: 2 });
      await client.close();
      // The admin dashboard's files, which tsc does not emit, made it into the image (npm run build copies them).
      for (const [path, type] of [
        ['/admin', 'text/html'],
        ['/admin/app.js', 'text/javascript'],
        ['/admin/app.css', 'text/css'],
      ]) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({
          path,
          status: 200,
          type: `${type}; charset=utf-8`,
        });
      }
    } finally {
      host.kill('SIGTERM');
      await exited;
    }
    // The audit trail went to the image's volume.
    const trail = emulator.hostPath(runtime, '/app/audit/audit.jsonl');
    expect(readFileSync(trail, 'utf8')).toContain('"target":"search_tickets"');
    if (emulator.owns) expect(statSync(trail).uid).toBe(1000);
  }, 360_000);

  it('names the Dockerfile line of a COPY whose source is missing', () => {
    const out = buildDirectory();
    const dockerfile = join(out, 'Dockerfile');
    writeFileSync(
      dockerfile,
      'FROM node:20-bookworm-slim AS build\nWORKDIR /app\nCOPY test/conformance/install.mjs test/conformance/missing-suite.mjs ./\n',
    );
    expect(() => new DockerfileEmulator(ROOT, out).build(readFileSync(dockerfile, 'utf8'))).toThrow(
      'Dockerfile line 3 (COPY test/conformance/install.mjs test/conformance/missing-suite.mjs ./): the source "test/conformance/missing-suite.mjs" does not exist in the build context',
    );
  });

  it('refuses what it cannot emulate rather than skipping it', () => {
    const build = (dockerfile: string) => () => new DockerfileEmulator(ROOT, buildDirectory()).build(dockerfile);
    expect(build('FROM node:20 AS build\nWORKDIR /app\nRUN mkdir -p /app/audit\n')).toThrow(
      'Dockerfile line 3 (RUN mkdir -p /app/audit): reaches an absolute path',
    );
    expect(build('FROM node:20\nADD https://example.com/x.tgz /x\n')).toThrow(
      'Dockerfile line 2 (ADD https://example.com/x.tgz /x): this instruction is not emulated',
    );
    expect(build('FROM node:20\nENV PORT 3000\n')).toThrow('Dockerfile line 2 (ENV PORT 3000): expected ENV KEY=value');
    expect(build('FROM node:20\nENV PATH=/app/bin:$PATH\n')).toThrow('without $ substitutions');
    expect(build('FROM node:20\nCOPY --chmod=600 package.json ./\n')).toThrow('the flag --chmod=600 is not emulated');
    expect(build('FROM node:20\nCMD node dist/src/main.js\n')).toThrow('expected the exec form');
    expect(build('FROM debian:bookworm\nUSER node\n')).toThrow(
      'Dockerfile line 2 (USER node): the user "node" of debian:bookworm is not known',
    );
  });
});
