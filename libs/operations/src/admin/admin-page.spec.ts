import { createHash } from 'node:crypto';
import { Script } from 'node:vm';
import { ADMIN_APP_JS } from './admin-app.script';
import { ADMIN_STYLE, adminStyleHash, escapeHtml, renderAdminPage } from './admin-page';

describe('admin page', () => {
  const page = renderAdminPage({ base: '/ops/admin', hostName: 'Desk <script>alert(1)</script> & "co"', refreshMs: 5_000 });

  it('is one document with its style inline and its script from app.js, no inline script', () => {
    expect(page).toContain('<html lang="en" data-base="/ops/admin" data-refresh-ms="5000"');
    expect(page).toContain('<script src="/ops/admin/app.js" defer></script>');
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
    expect(page).not.toMatch(/style="/); // no style attributes (the CSP allows the sheet by hash only)
    expect(page).not.toMatch(/https?:\/\//); // nothing from a CDN
    expect(page).toContain(`<style>${ADMIN_STYLE}</style>`);
  });

  it('escapes the host name', () => {
    expect(page).toContain('<title>MCP admin · Desk &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;</title>');
    expect(page).not.toContain('<script>alert(1)');
    expect(escapeHtml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('allows its style sheet by hash', () => {
    expect(adminStyleHash()).toBe(`'sha256-${createHash('sha256').update(ADMIN_STYLE).digest('base64')}'`);
  });

  it('ships a script that parses and never writes markup from data', () => {
    expect(() => new Script(ADMIN_APP_JS)).not.toThrow();
    expect(ADMIN_APP_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    // Every element the script looks up exists in the page.
    const ids = [...ADMIN_APP_JS.matchAll(/\$\('([a-z0-9-]+)'\)/g)].map((match) => match[1]);
    const setTexts = [...ADMIN_APP_JS.matchAll(/setText\('([a-z0-9-]+)'/g)].map((match) => match[1]);
    for (const id of new Set([...ids, ...setTexts])) expect(page).toContain(`id="${id}"`);
  });
});
