// Preloaded with `node --import`: on SIGTERM, writes the npm packages the process has loaded
// (one line of JSON on stderr, after `LOADED `) and exits. CommonJS modules (and ES modules that
// CommonJS requires) are in require.cache; the ES modules imported are reported by loader hooks.
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const imported = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => imported.add(url));
port1.unref();
register(new URL('./loaded-packages-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });

process.on('SIGTERM', () => {
  const names = new Set();
  for (const file of [...Object.keys(createRequire(import.meta.url).cache), ...imported]) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) names.add(match[1]);
  }
  process.stderr.write(`LOADED ${JSON.stringify([...names].sort())}\n`, () => process.exit(0));
});
