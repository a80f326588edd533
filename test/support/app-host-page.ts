import { build } from 'esbuild';

/**
 * The host side of MCP Apps as a browser page: the official `AppBridge` and `PostMessageTransport`
 * of `@modelcontextprotocol/ext-apps`, bundled for chromium (as `McpHost` on the page), and
 * `renderView`, which frames a view's document in a sandboxed `<iframe>` (scripts only, an opaque
 * origin, as hosts frame views), connects a bridge to it and hands it the tool's input. The
 * view's calls of server tools go to `hostCallTool`, which the test exposes: the SDK client
 * that holds the connection to the server runs in the test process.
 */
export async function appHostPage(): Promise<string> {
  const bundle = await build({
    stdin: {
      contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';",
      resolveDir: process.cwd(),
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    globalName: 'McpHost',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MCP Apps host</title>
<style>
  body { margin: 0; padding: 16px; font: 14px system-ui, sans-serif; background: #f4f5f8; }
  .turn { max-width: 560px; margin: 0 0 16px; }
  .turn > p { margin: 0 0 6px; color: #4a5160; }
  iframe { display: block; width: 100%; height: 360px; border: 1px solid #d5dae3; border-radius: 10px; background: #fff; }
</style></head>
<body><div id="views"></div>
<script>${script}</script>
<script>
  window.bridges = {};
  window.renderView = async ({ id, caption, html, tool, input, principal }) => {
    const turn = document.createElement('div');
    turn.className = 'turn';
    turn.innerHTML = '<p></p>';
    turn.firstChild.textContent = caption;
    const frame = document.createElement('iframe');
    frame.id = id;
    frame.setAttribute('sandbox', 'allow-scripts');
    turn.append(frame);
    document.getElementById('views').append(turn);
    const bridge = new McpHost.AppBridge(
      null,
      { name: 'nest-mcp-host e2e host', version: '1.0.0' },
      { serverTools: {}, openLinks: {} },
      { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', toolInfo: { tool } } },
    );
    bridge.oncalltool = (params) => window.hostCallTool(principal, params);
    bridge.onsizechange = ({ height }) => { if (height) frame.style.height = Math.ceil(height) + 2 + 'px'; };
    const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
    await bridge.connect(new McpHost.PostMessageTransport(frame.contentWindow, frame.contentWindow));
    frame.srcdoc = html;
    await initialized;
    await bridge.sendToolInput({ arguments: input });
    window.bridges[id] = bridge;
  };
  window.sendResult = (id, result) => window.bridges[id].sendToolResult(result);
</script></body></html>`;
}
