// The shape of the request path, in the four numbers docs/architecture.md keeps before and after a
// re-cut, for the checkout at ROOT (default: this one; it must be built: `npm run build`):
//   node test/bench/code-shape.mjs [ROOT]
// - the package's files one tools/call runs code in (Streamable HTTP, a 2025 stateful session,
//   the audit trail on; V8 precise coverage of that one call after a warm-up), barrels among them;
// - the widest function or method signature in libs/ (parameters; constructors, whose parameters
//   Nest injects, are left out);
// - the lines outside the cluster's own code that ask whether there is a cluster;
// - the largest source file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(here, '..', '..'));
const require = createRequire(join(root, 'package.json'));

/** The non-spec TypeScript sources of libs/, relative to the root. */
function sources() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'dist' && name !== 'node_modules' && name !== 'testing') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(join(root, 'libs'));
  return files;
}

function widestSignature(files) {
  const ts = require('typescript');
  let widest = { count: 0, where: [] };
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      const fn =
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node);
      if (fn) {
        const count = node.parameters.length;
        const where = `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (count > widest.count) widest = { count, where: [where] };
        else if (count === widest.count) widest.where.push(where);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return widest;
}

/** Ways the code has asked "is there a cluster?" (flags, its replica name, its relays' switches). */
const CLUSTER_ASK =
  /cluster\??\.enabled|\.clustered\b|relay\??\.enabled|sharedStreams\.enabled|replicas\.replica\b|cluster\.replica\b/;

function clusterAsks(files) {
  const asks = [];
  for (const file of files) {
    const path = relative(root, file);
    if (path.startsWith('libs/cluster/') || path.startsWith('libs/core/src/cluster/')) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => CLUSTER_ASK.test(line) && asks.push(`${path}:${i + 1}`));
  }
  return asks;
}

function largestFile(files) {
  return files
    .map((file) => ({ path: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.lines - a.lines)[0];
}

async function filesOfOneCall() {
  require('reflect-metadata');
  const { NestFactory } = require('@nestjs/core');
  const { Module } = require('@nestjs/common');
  // The per-file build (the package's entries are one bundle): which source files a call runs code in.
  const lib = require(join(root, 'libs', 'dist', 'index.js'));
  const audit = join(mkdtempSync(join(tmpdir(), 'code-shape-')), 'audit.jsonl');
  class AppModule {}
  Module({ imports: [lib.McpModule.forRoot({ name: 'shape', version: '1.0.0', audit: { file: audit } })] })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false });
  app.get(lib.McpCatalog).addTool({ name: 'probe', description: 'answers ok' }, () => 'ok');
  await app.listen(0, '127.0.0.1');
  const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  const post = (body) => fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
  const opened = await post({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'shape', version: '1' } },
  });
  headers['mcp-session-id'] = opened.headers.get('mcp-session-id');
  const call = (id) =>
    post({ id, method: 'tools/call', params: { name: 'probe', arguments: {} } }).then((r) => r.text());
  for (let id = 1; id <= 20; id++) await call(id);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage'); // counts from here on
  await call(100);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await app.close();
  return result
    .filter((script) => script.url.includes('/libs/dist/'))
    .filter((script) => script.functions.some((fn) => fn.functionName !== '' && fn.ranges[0].count > 0))
    .map((script) => script.url.replace(/.*\/libs\/dist\//, 'libs/').replace(/\.js$/, '.ts'))
    .sort();
}

const files = sources();
const called = await filesOfOneCall();
const widest = widestSignature(files);
const asks = clusterAsks(files);
const largest = largestFile(files);
const commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD']).toString().trim();
console.log(`${root} at ${commit}`);
console.log(
  `files one tools/call runs code in: ${called.length} (${called.filter((f) => f.endsWith('/index.ts')).length} barrels)`,
);
console.log(`widest signature: ${widest.count} parameters (${widest.where.join(', ')})`);
console.log(`lines asking whether there is a cluster: ${asks.length}${asks.length ? ` (${asks.join(', ')})` : ''}`);
console.log(`largest file: ${largest.path}, ${largest.lines} lines`);
if (process.env.CODE_SHAPE_FILES) console.log(called.join('\n'));
