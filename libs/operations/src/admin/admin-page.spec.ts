import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import * as ts from 'typescript';
import { ADMIN_ASSETS_DIR, AdminAssets } from './admin-assets';
import { escapeHtml, renderAdminPage } from './admin-page';

describe('admin page', () => {
  const assets = AdminAssets.load();
  const script = assets.script.body;
  const page = renderAdminPage(assets.pageTemplate, {
    base: '/ops/admin',
    hostName: 'Desk <script>alert(1)</script> & "co"',
    refreshMs: 5_000,
  });

  it('is one document whose script and style sheet are files under the admin path, nothing inline', () => {
    expect(page).toContain('<html lang="en" data-base="/ops/admin" data-refresh-ms="5000"');
    expect(page).toContain('<script src="/ops/admin/app.js" defer></script>');
    expect(page).toContain('<link rel="stylesheet" href="/ops/admin/app.css" />');
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toMatch(/<style/i); // the CSP's style-src is 'self': an inline sheet would not apply
    expect(page).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
    expect(page).not.toMatch(/style="/); // no style attributes
    expect(page).not.toMatch(/https?:\/\//); // nothing from a CDN
    expect(page).not.toContain('{{'); // every placeholder filled
  });

  it('escapes the host name and refuses a placeholder it has no value for', () => {
    expect(page).toContain(
      '<title>MCP admin · Desk &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;</title>',
    );
    expect(page).not.toContain('<script>alert(1)');
    expect(
      renderAdminPage('<a href="{{base}}/x">{{ hostName }}</a>', { base: '/a"b', hostName: '<i>', refreshMs: 1 }),
    ).toBe('<a href="/a&quot;b/x">&lt;i&gt;</a>');
    expect(() => renderAdminPage('<p>{{version}}</p>', { base: '/admin', hostName: 'x', refreshMs: 1 })).toThrow(
      'The admin page template has the placeholder {{version}}, which has no value; use one of: base, hostName, refreshMs.',
    );
    expect(escapeHtml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('ships a strict script that parses, leaks no globals and never writes markup from data', () => {
    expect(() => new Script(script, { filename: 'admin.js' })).not.toThrow();
    // Top level: the 'use strict' directive and one function called at once, nothing else.
    const statements = ts.createSourceFile(
      'admin.js',
      script,
      ts.ScriptTarget.ES2020,
      false,
      ts.ScriptKind.JS,
    ).statements;
    expect(statements).toHaveLength(2);
    const [directive, body] = statements;
    expect(
      ts.isExpressionStatement(directive) && ts.isStringLiteral(directive.expression) && directive.expression.text,
    ).toBe('use strict');
    const call = ts.isExpressionStatement(body) ? body.expression : undefined;
    const callee = call && ts.isCallExpression(call) ? call.expression : undefined;
    expect(callee && ts.isParenthesizedExpression(callee) && ts.isFunctionExpression(callee.expression)).toBe(true);
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    // Every element the script looks up exists in the page.
    const ids = [...script.matchAll(/\$\('([a-z0-9-]+)'\)/g)].map((match) => match[1]);
    const setTexts = [...script.matchAll(/setText\('([a-z0-9-]+)'/g)].map((match) => match[1]);
    expect(ids.length).toBeGreaterThan(20);
    for (const id of new Set([...ids, ...setTexts])) expect(page).toContain(`id="${id}"`);
  });

  it('ships a style sheet that loads nothing from elsewhere', () => {
    expect(assets.style.body).toContain(':root {');
    expect(assets.style.body).not.toMatch(/@import|url\(|expression\(/i);
  });

  it('serves the files of assets/ as they are', () => {
    expect(script).toBe(readFileSync(join(ADMIN_ASSETS_DIR, 'admin.js'), 'utf8'));
    expect(assets.style.body).toBe(readFileSync(join(ADMIN_ASSETS_DIR, 'admin.css'), 'utf8'));
    expect(assets.pageTemplate).toBe(readFileSync(join(ADMIN_ASSETS_DIR, 'admin.html'), 'utf8'));
  });
});
