import type { ServerResponse } from 'node:http';
import type { ConsentPrompt, ConsentsPage } from '../mcp-authorization-server';

/**
 * The headers of every page of the facade: no script at all, no framing (clickjacking: CSP
 * `frame-ancestors 'none'` and `X-Frame-Options: DENY`), no caching, no referrer (a code in a
 * URL never leaves for another origin). No `form-action`: the consent form's answer redirects to the
 * client's own redirect URI, which browsers would check against it.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1c1c1c}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{color:#555}dd{margin:0;word-break:break-all}
code{font-size:.9em}.warn{color:#8a4b00}button{font:inherit;padding:.4rem 1.2rem;margin-right:.6rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #ddd}`;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escape(title)}</title><style>${STYLE}</style><body>${body}</body></html>`;
}

function who(person: ConsentPrompt['person']): string {
  const named = person.name && person.name !== person.id ? ` (${escape(person.name)})` : '';
  return `<strong>${escape(person.email ?? person.id)}</strong>${named}`;
}

/** The consent page: who asks, where its metadata came from, where the code goes, what the tokens carry. */
export function sendConsentPage(res: ServerResponse, prompt: ConsentPrompt): void {
  const { client } = prompt;
  const name = client.name ? escape(client.name) : '<em>an unnamed client</em>';
  const list = (items: string[], none: string) =>
    items.length ? items.map((item) => `<code>${escape(item)}</code>`).join(' ') : none;
  res.writeHead(200, PAGE_HEADERS).end(
    page(
      'Allow access?',
      `<h1>Allow ${name} to act as you?</h1>
<p>You are signed in as ${who(prompt.person)}. The client below asks for access to this MCP server in your name.
Allow it only if you started this sign-in from that client yourself.</p>
<dl>
<dt>Client</dt><dd id="client-name">${name}</dd>
<dt>Client id</dt><dd><code id="client-id">${escape(client.id)}</code></dd>
<dt>Its metadata</dt><dd id="client-source">${escape(client.source)}</dd>
<dt>Sends you back to</dt><dd id="redirect-host"><strong>${escape(client.redirectHost)}</strong> <code>${escape(client.redirectUri)}</code></dd>
<dt>Scopes</dt><dd id="scopes">${list(prompt.scopes, 'none')}</dd>
<dt>Roles</dt><dd id="roles">${list(prompt.roles, 'none')}</dd>
</dl>
<p class="warn">A name is what the client says of itself; the address it sends you back to is what counts.</p>${
        client.loopback
          ? '<p class="warn" id="loopback">The code goes to a program on this computer: any program listening ' +
            'there could claim to be this client. Allow it only if you just started this sign-in from it.</p>'
          : ''
      }
<form method="post" action="${escape(prompt.action)}">
<input type="hidden" name="request" value="${escape(prompt.request)}">
<input type="hidden" name="csrf" value="${escape(prompt.csrf)}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`,
    ),
  );
}

/** The person's own page: the clients they approved, each with a revoke form. */
export function sendConsentsPage(res: ServerResponse, view: ConsentsPage): void {
  const rows = view.consents
    .map(
      (consent) => `<tr data-client="${escape(consent.clientId)}"><td>${escape(consent.clientName ?? '(unnamed)')}
<br><code>${escape(consent.clientId)}</code></td><td>${escape(consent.redirectHost)}</td>
<td>${consent.scopes.map((scope) => `<code>${escape(scope)}</code>`).join(' ') || 'none'}</td>
<td>${escape(consent.approvedAt.slice(0, 10))}</td><td><form method="post" action="${escape(view.action)}">
<input type="hidden" name="csrf" value="${escape(view.csrf)}"><input type="hidden" name="client_id" value="${escape(consent.clientId)}">
<button type="submit">Revoke</button></form></td></tr>`,
    )
    .join('');
  res.writeHead(200, PAGE_HEADERS).end(
    page(
      'Your approved clients',
      `<h1>Clients you approved</h1><p>Signed in as ${who(view.person)}. Revoking one ends its sign-ins now;
it asks you again next time.</p>${
        rows
          ? `<table><thead><tr><th>Client</th><th>Sends to</th><th>Scopes</th><th>Approved</th><th></th></tr></thead><tbody id="consents">${rows}</tbody></table>`
          : '<p id="none">You have approved no client.</p>'
      }`,
    ),
  );
}
