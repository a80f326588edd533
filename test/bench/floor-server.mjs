// The floor: a bare node:http server answering MCP JSON-RPC by hand, with no framework,
// no validation library and no caching (tools/list is serialized per request).
import { createServer } from 'node:http';
import { ADD_TOOL, NOOP_TOOLS, PROMPTS, RESOURCES } from './catalog.mjs';

const TOOLS = [ADD_TOOL, ...NOOP_TOOLS];

function answer(message) {
  switch (message.method) {
    case 'initialize':
      return { protocolVersion: '2025-11-25', capabilities: { tools: {}, prompts: {}, resources: {} }, serverInfo: { name: 'floor', version: '1.0.0' } };
    case 'tools/list':
      return { tools: TOOLS };
    case 'prompts/list':
      return { prompts: PROMPTS };
    case 'resources/list':
      return { resources: RESOURCES };
    case 'tools/call': {
      const { name, arguments: args } = message.params;
      if (name === 'add') return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      return { content: [{ type: 'text', text: 'ok' }] };
    }
    default:
      return {};
  }
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
}).listen(Number(process.env.PORT ?? 3003), '127.0.0.1');
