import { createHash } from 'node:crypto';

/** The dashboard's style sheet, inline in the page and allowed by its hash in the CSP. */
export const ADMIN_STYLE = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; --card: #fff; --ok: #1a7f37; --ok-bg: #dafbe1; --warn: #9a6700; --warn-bg: #fff8c5; --bad: #cf222e; --bad-bg: #ffebe9; --accent: #0969da; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 10px 24px; background: #24292f; color: #fff; }
header h1 { margin: 0; font-size: 18px; font-weight: 600; }
header .muted { color: #c9d1d9; }
header button { background: #32383f; color: #fff; border: 1px solid #57606a; }
.brand { display: flex; flex-direction: column; }
.spacer { flex: 1; }
main { max-width: 1440px; margin: 0 auto; padding: 16px 24px 40px; }
main.stale { opacity: .45; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px 16px; margin-bottom: 16px; overflow-x: auto; }
h2 { font-size: 16px; margin: 0 0 8px; display: flex; gap: 10px; align-items: baseline; }
h3 { font-size: 14px; margin: 14px 0 6px; }
h2 .muted, .meta { font-weight: normal; font-size: 13px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.strong { font-weight: 600; }
.nowrap { white-space: nowrap; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); background: var(--bg); white-space: nowrap; }
tbody tr:nth-child(even) { background: #fbfcfd; }
tr.idle td { color: var(--muted); }
tfoot td { font-weight: 600; border-top: 2px solid var(--line); }
.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.bad { color: var(--bad); font-weight: 600; }
td.busy { color: var(--accent); font-weight: 600; }
.desc { max-width: 420px; }
.error-text { color: var(--bad); font-size: 12px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; background: none; border: 0; padding: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.card .label { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.pill { display: inline-block; padding: 1px 10px; border-radius: 999px; font-size: 12px; font-weight: 600; text-transform: uppercase; background: #eaeef2; color: var(--muted); }
.pill.big { font-size: 14px; padding: 3px 14px; }
.s-ok, .s-up { background: var(--ok-bg); color: var(--ok); }
.s-degraded { background: var(--warn-bg); color: var(--warn); }
.s-down { background: var(--bad-bg); color: var(--bad); }
.outcome { font-size: 12px; font-weight: 600; padding: 0 6px; border-radius: 4px; }
.o-ok { color: var(--ok); background: var(--ok-bg); }
.o-warn { color: var(--warn); background: var(--warn-bg); }
.o-bad { color: var(--bad); background: var(--bad-bg); }
.badge { display: inline-block; margin: 0 4px 2px 0; padding: 0 6px; border: 1px solid var(--line); border-radius: 4px; font-size: 11.5px; white-space: nowrap; }
.b-ro { color: var(--ok); border-color: #aceebb; }
.b-destructive { color: var(--bad); border-color: #ffcecb; }
.b-confirm { color: var(--warn); border-color: #eac54f; }
.notice { margin: 12px 24px 0; padding: 10px 14px; border-radius: 8px; border: 1px solid; }
.notice.error { background: var(--bad-bg); border-color: #ffcecb; color: #82071e; }
.notice.warn { background: var(--warn-bg); border-color: #eac54f; color: #7d4e00; }
.key-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 12px 24px 0; padding: 12px 14px; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
input, select, button { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--fg); }
button { cursor: pointer; background: #f6f8fa; }
button.link { border: 0; background: none; padding: 0; color: var(--accent); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; text-align: left; }
button.link:hover { text-decoration: underline; }
#key { min-width: 320px; }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 8px; }
details summary { cursor: pointer; color: var(--accent); font-size: 12px; }
pre { margin: 4px 0; padding: 8px; max-width: 460px; max-height: 320px; overflow: auto; background: var(--bg); border-radius: 6px; font-size: 11.5px; }
.count { font-variant-numeric: tabular-nums; }
#approvals-panel { border-color: #eac54f; }
#approvals-panel .args { max-width: 380px; }
.decide { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.decide input { min-width: 180px; }
button.approve { background: var(--ok-bg); color: var(--ok); border-color: #aceebb; font-weight: 600; }
button.deny { background: var(--bad-bg); color: var(--bad); border-color: #ffcecb; font-weight: 600; }
html[data-mode="approval"] #content > section:not(#approvals-panel), html[data-mode="approval"] header label, html[data-mode="approval"] #overall,
html[data-mode="approver"] #content > section:not(#approvals-panel), html[data-mode="approver"] #overall { display: none; }
footer { text-align: center; color: var(--muted); font-size: 12px; padding-bottom: 24px; }
`;

/** `sha256-…` of the style sheet, for the page's `style-src`. */
export function adminStyleHash(): string {
  return `'sha256-${createHash('sha256').update(ADMIN_STYLE).digest('base64')}'`;
}

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * The dashboard page: structure and style only, no data (the script fetches it with the admin
 * key), so anyone the Host/Origin policy admits may load it.
 */
export function renderAdminPage({ base, hostName, refreshMs }: { base: string; hostName: string; refreshMs: number }): string {
  const b = escapeHtml(base);
  const name = escapeHtml(hostName);
  const th = (label: string, num = false) => `<th${num ? ' class="num"' : ''}>${label}</th>`;
  return `<!doctype html>
<html lang="en" data-base="${b}" data-refresh-ms="${refreshMs}" data-state="loading">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>MCP admin · ${name}</title>
<link rel="icon" href="data:,">
<style>${ADMIN_STYLE}</style>
<script src="${b}/app.js" defer></script>
</head>
<body>
<header>
  <div class="brand"><h1 id="host-name">${name}</h1><span id="host-version" class="muted small">MCP admin</span></div>
  <span id="overall" class="pill big">…</span>
  <span class="spacer"></span>
  <span id="principal" class="muted small"></span>
  <span id="updated" class="muted small">loading…</span>
  <label class="small"><input type="checkbox" id="auto" checked> every <span id="refresh-every"></span></label>
  <button id="refresh" type="button">Refresh</button>
  <button id="forget" type="button" hidden>Forget key</button>
</header>
<div id="notice" class="notice" role="alert" hidden></div>
<form id="key-form" class="key-form" method="post" autocomplete="off" hidden>
  <label for="key"><strong>Admin key or token</strong></label>
  <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" placeholder="paste an API key or access token">
  <button type="submit">Use key</button>
  <span class="muted small" id="key-hint">Kept in this tab only (sessionStorage) and sent as <code>Authorization: Bearer</code>. It needs the role <code>admin</code> or the scope <code>mcp:admin</code>.</span>
</form>
<main id="content">
  <section class="cards">
    <div class="card"><div class="label">Uptime</div><div class="value" id="card-uptime">–</div></div>
    <div class="card"><div class="label">Sessions</div><div class="value" id="card-sessions">–</div></div>
    <div class="card"><div class="label">In flight</div><div class="value" id="card-inflight">–</div></div>
    <div class="card"><div class="label" id="card-requests-label">Requests</div><div class="value" id="card-requests">–</div></div>
    <div class="card"><div class="label">Error rate</div><div class="value" id="card-errors">–</div></div>
    <div class="card"><div class="label">p95 latency</div><div class="value" id="card-p95">–</div></div>
  </section>
  <section id="approvals-panel">
    <h2>Approvals <span id="approval-count" class="count">–</span> <span id="approvals-meta" class="muted meta">calls held until a person approves them</span></h2>
    <p id="approvals-off" class="muted" hidden></p>
    <table id="approvals-table"><thead><tr>${th('Requested')}${th('By')}${th('Tool')}${th('Arguments')}${th('Question')}${th('Status')}${th('Decision')}</tr></thead><tbody id="approval-rows"></tbody></table>
  </section>
  <section id="health-panel">
    <h2>Health <span class="muted meta">the checks of /health/ready</span></h2>
    <table><thead><tr>${th('Component')}${th('Status')}${th('Required')}${th('Details')}</tr></thead><tbody id="health-rows"></tbody></table>
  </section>
  <section id="stats-panel">
    <h2>Calls <span id="stats-window" class="muted meta"></span></h2>
    <table id="stats-table">
      <thead><tr>${th('Kind')}${th('Name')}${th('Calls', true)}${th('Errors', true)}${th('Error rate', true)}${th('p50 ms', true)}${th('p95 ms', true)}${th('p99 ms', true)}${th('Max ms', true)}${th('Since start', true)}${th('Last call')}${th('Not ok')}</tr></thead>
      <tbody id="stats-rows"></tbody>
      <tfoot id="stats-total"></tfoot>
    </table>
  </section>
  <section id="sessions-panel">
    <h2>Sessions <span id="session-count" class="count">–</span> <span id="sessions-meta" class="muted meta"></span></h2>
    <table><thead><tr>${th('Session')}${th('Principal')}${th('Client')}${th('Protocol')}${th('Transport')}${th('Created')}${th('Last seen')}${th('In flight', true)}</tr></thead><tbody id="session-rows"></tbody></table>
  </section>
  <section id="audit-panel">
    <h2>Recent audit records <span id="audit-meta" class="muted meta"></span></h2>
    <form id="audit-filter" class="filters" method="post" autocomplete="off">
      <input id="f-principal" placeholder="principal" aria-label="principal">
      <input id="f-target" placeholder="target (tool, prompt, URI)" aria-label="target">
      <select id="f-outcome" aria-label="outcome"><option value="">any outcome</option></select>
      <select id="f-limit" aria-label="limit"><option>20</option><option selected>50</option><option>100</option><option>500</option></select>
      <button type="submit">Filter</button>
      <button type="button" id="audit-clear">Clear</button>
    </form>
    <p id="audit-off" class="muted" hidden>Audit is off: this host keeps no audit trail (McpModule option <code>audit</code>).</p>
    <table id="audit-table"><thead><tr>${th('Time')}${th('Principal')}${th('Method')}${th('Target')}${th('Outcome')}${th('Code', true)}${th('ms', true)}${th('Error')}</tr></thead><tbody id="audit-rows"></tbody></table>
  </section>
  <section id="catalog-panel">
    <h2>Catalog <span id="catalog-meta" class="muted meta"></span></h2>
    <h3>Tools</h3>
    <table><thead><tr>${th('Tool')}${th('Description')}${th('Hints')}${th('Access')}${th('Throttle')}${th('Limits')}${th('Schemas')}</tr></thead><tbody id="tool-rows"></tbody></table>
    <h3>Prompts</h3>
    <table><thead><tr>${th('Prompt')}${th('Description')}${th('Arguments')}${th('Access')}${th('Throttle')}</tr></thead><tbody id="prompt-rows"></tbody></table>
    <h3>Resources and templates</h3>
    <table><thead><tr>${th('URI')}${th('Kind')}${th('Name')}${th('Description')}${th('MIME type')}${th('Access')}</tr></thead><tbody id="resource-rows"></tbody></table>
  </section>
</main>
<footer>MCP admin dashboard · data from <code>${b}/api/*</code></footer>
</body>
</html>
`;
}
