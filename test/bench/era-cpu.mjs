// Server CPU per request of a stateless 2025-11-25 and a 2026-07-28 `tools/call` on the bench
// host, and of a 2025 request grown to the 2026 one's size (see abba-cpu.mjs for the method).
//
//   npm run build && node test/bench/era-cpu.mjs     (ERA_ROUNDS=6 ERA_SECONDS=8 PORT=3993)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureAbba } from './abba-cpu.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const call = { name: 'add', arguments: { a: 1, b: 2 } };
const modern = {
  headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'add' },
  body: {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      ...call,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      },
    },
  },
};
// The 2025 request grown to the 2026 one's size: the same `_meta` under another namespace of the
// same length and two headers as long as `Mcp-Method` / `Mcp-Name`, all of which a 2025 request
// ignores. Against it, what remains of the difference is the 2026 handling itself.
const padded = JSON.parse(
  JSON.stringify(modern.body).replaceAll('io.modelcontextprotocol/', 'io.padded.same.length00/'),
);
const variants = {
  '2025-11-25': {
    headers: { 'MCP-Protocol-Version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
  },
  '2026-07-28': modern,
  '2025-11-25 padded': {
    headers: { 'MCP-Protocol-Version': '2025-11-25', 'X-P-Method': 'tools/call', 'X-P-Name': 'add' },
    body: padded,
  },
};

const results = await measureAbba({
  entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
  env: {},
  port: Number(process.env.PORT ?? 3993),
  variants,
  rounds: Number(process.env.ERA_ROUNDS ?? 6),
  seconds: Number(process.env.ERA_SECONDS ?? 8),
});
const newer = results['2026-07-28'].cpu;
for (const [name, { cpu }] of Object.entries(results)) {
  const against =
    name === '2026-07-28'
      ? ''
      : `; 2026-07-28 costs ${(newer / cpu).toFixed(3)}× (${(newer - cpu).toFixed(1)} µs more)`;
  console.log(`median ${name}: ${cpu.toFixed(1)} µs${against}`);
}
