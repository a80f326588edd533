// The floor: a bare node:http server answering MCP JSON-RPC by hand, with no framework, no
// validation library and no caching (every list is serialized per request with JSON.stringify).
import { createServer } from 'node:http';
import { ADD_TOOL, NOOP_TOOLS, PROMPTS, RESOURCES } from './catalog.mjs';

const TOOLS = [ADD_TOOL, ...NOOP_TOOLS];

/** The result of one request, or undefined for an unknown method. */
function answer(message) {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {}, prompts: {}, resources: {} },
        serverInfo: { name: 'floor', version: '1.0.0' },
      };
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: TOOLS };
    case 'prompts/list':
      return { prompts: PROMPTS };
    case 'resources/list':
      return { resources: RESOURCES };
    case 'tools/call': {
      const { name, arguments: args } = message.params;
      const text = name === 'add' ? String(args.a + args.b) : 'ok';
      return { content: [{ type: 'text', text }] };
    }
    default:
      return undefined;
  }
}

function send(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end(); // a notification
      return;
    }
    const result = answer(message);
    send(
      res,
      200,
      result
        ? { jsonrpc: '2.0', id: message.id, result }
        : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } },
    );
  });
}).listen(Number(process.env.PORT ?? 3003), '127.0.0.1');
