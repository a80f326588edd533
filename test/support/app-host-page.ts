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

/** `_meta.ui.csp` of a view, as the extension names it (`McpUiResourceCsp`). */
export interface DeclaredViewCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/**
 * The policy a host builds from a view's `_meta.ui.csp`, directive by directive as the extension
 * maps it (inline scripts allowed, as hosts allow them for bundled views): the declared origins
 * and nothing else. Without a declared policy, this host falls back to a loose one of its own —
 * the careless host the view must not depend on.
 */
export function hostPolicyOf(csp: DeclaredViewCsp | undefined): string {
  if (csp === undefined) return "default-src * 'unsafe-inline' data: blob:";
  const list = (origins: string[] | undefined, ...base: string[]) =>
    [...base, ...(origins ?? [])].join(' ') || "'none'";
  return [
    "default-src 'none'",
    `script-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `style-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `img-src ${list(csp.resourceDomains, 'data:')}`,
    `font-src ${list(csp.resourceDomains, 'data:')}`,
    `media-src ${list(csp.resourceDomains, 'data:')}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    `base-uri ${list(csp.baseUriDomains)}`,
  ].join('; ');
}

/**
 * The document a host that wraps a view puts in its frame (the Inspector's web UI wraps views):
 * its own `<head>` with the policy it built from `_meta.ui.csp`, and the view's document inside
 * its `<body>` — where the view's own `<meta http-equiv="Content-Security-Policy">` no longer
 * counts (a policy in a `<meta>` applies only as a child of `<head>`).
 */
export function wrappedViewDocument(html: string, csp: DeclaredViewCsp | undefined): string {
  const policy = hostPolicyOf(csp).replace(/"/g, '&quot;');
  return `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${policy}"></head><body>${html}</body></html>`;
}

/**
 * A host page that frames documents as they are handed to it: `window.frameDocument(id, html)`
 * puts `html` in a sandboxed `<iframe>` (scripts only, an opaque origin, as hosts frame views)
 * and resolves once it has loaded. Serve it from a loopback origin, so the frames it makes are
 * on the same network as what they reach.
 */
export const FRAMING_HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A host framing views</title></head>
<body><script>
  window.frameDocument = (id, html) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.id = id;
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.addEventListener('load', () => resolve(), { once: true });
    document.body.append(frame);
    frame.srcdoc = html;
  });
</script></body></html>`;
