// A tool made from a REST route against the same operation as a native `@McpTool`, on the support
// desk (AUTH_MODE=none, stateless): `getTicket` (GET /api/tickets/{ticketId}, run in process
// through Express, the route's guard, pipe and filter) and `get_ticket`, both returning ticket
// T-2001, as stateless 2026-07-28 requests (see abba-cpu.mjs for the method).
//
//   npm run build && node test/bench/rest-bridge.mjs     (REST_ROUNDS=6 REST_SECONDS=8 PORT=3995)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureAbba } from './abba-cpu.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const callOf = (name) => ({
  headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
  body: {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: { ticketId: 'T-2001' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      },
    },
  },
  check: (answer) => answer?.result?.structuredContent?.id === 'T-2001' && !answer.result.isError,
});

const results = await measureAbba({
  entry: join(root, 'dist', 'src', 'main.js'),
  env: { AUTH_MODE: 'none', MCP_MODE: 'stateless', LOG_LEVEL: 'error', THROTTLE_LIMIT: '100000000', HOST: '127.0.0.1' },
  port: Number(process.env.PORT ?? 3995),
  variants: { 'native get_ticket': callOf('get_ticket'), 'REST getTicket': callOf('getTicket') },
  rounds: Number(process.env.REST_ROUNDS ?? 6),
  seconds: Number(process.env.REST_SECONDS ?? 8),
});
const native = results['native get_ticket'];
const rest = results['REST getTicket'];
console.log(
  `median: native ${native.cpu.toFixed(1)} µs (${native.rps.toFixed(0)} req/s), REST ${rest.cpu.toFixed(1)} µs ` +
    `(${rest.rps.toFixed(0)} req/s): the REST route costs +${(rest.cpu - native.cpu).toFixed(1)} µs of server CPU ` +
    `per call (${(rest.cpu / native.cpu).toFixed(2)}×), ${(rest.rps / native.rps).toFixed(2)}× the throughput`,
);
