// Preloaded with `node --import`: on SIGTERM, writes the npm packages the process has loaded
// (one line of JSON on stderr, after `LOADED `), and the files of nest-mcp-host's bundle whose code
// ran (after `RAN `), and exits. CommonJS modules (and ES modules that CommonJS requires) are in
// require.cache; the ES modules imported are reported by loader hooks. The bundle wraps each of
// its files in one `__commonJS` function that runs it on its first require: that function is
// wrapped, as the bundle is compiled, to note the file's name.
import Module, { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const imported = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => imported.add(url));
port1.unref();
register(new URL('./loaded-packages-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });

const ran = [];
globalThis.__bundleFileRan = (name) => ran.push(name);
const WRAPPER = 'var __commonJS = (cb, mod) => function __require() {';
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (filename.endsWith('nest-mcp-host.js')) {
    if (!content.includes(WRAPPER)) throw new Error(`the bundle's module wrapper changed: update ${import.meta.url}`);
    content = content.replace(WRAPPER, `${WRAPPER} if (!mod) globalThis.__bundleFileRan(__getOwnPropNames(cb)[0]);`);
  }
  return compile.call(this, content, filename);
};

process.on('SIGTERM', () => {
  const names = new Set();
  for (const file of [...Object.keys(createRequire(import.meta.url).cache), ...imported]) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) names.add(match[1]);
  }
  process.stderr.write(`RAN ${JSON.stringify(ran)}\n`);
  process.stderr.write(`LOADED ${JSON.stringify([...names].sort())}\n`, () => process.exit(0));
});
