import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { McpDiagnostic } from '#libs/core';
import { AppsMessages } from './apps.messages';
import type { McpViewCsp, McpViewOptions } from './mcp-view-options.interface';
import { resourceUiMeta, type McpViewMeta } from './view-meta';

const UI_URI = /^ui:\/\/[^/?#\s]+(?:\/\S*)?$/;
/** An origin: a secure scheme and a host (a leading `*.` allowed), or a loopback host over plain HTTP/WS. */
const ORIGIN =
  /^(?:(?:https|wss):\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*|(?:http|ws):\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::(?:\d{1,5}|\*))?$/i;
const HOST_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i;
const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = new Set<unknown>(['camera', 'microphone', 'geolocation', 'clipboardWrite']);
const SCRIPT_END = /<\/script/i;
/** Inline `<script>` elements (no `src`) of an HTML text, their content captured. */
const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc\s*=)[^>]*>([\s\S]*?)<\/script\s*>/gi;

/** A view ready to serve: its `_meta.ui`, and the document for the HTML its method returns. */
export interface CompiledView {
  readonly meta: McpViewMeta;
  /** The served document: the HTML with its Content Security Policy and the declared scripts. */
  render(html: string): string;
}

/** Views compiled at start-up, by their options (what `@McpView` recorded on the method). */
const COMPILED = new WeakMap<McpViewOptions, CompiledView>();

/**
 * Checks a view's options and compiles it once: its scripts read (files) and hashed, its policy
 * written. Reports every problem with its fix; the compiled view is kept for its options.
 */
export function compileView(
  options: McpViewOptions,
  where: string,
): { view?: CompiledView; diagnostics: McpDiagnostic[] } {
  const diagnostics: McpDiagnostic[] = [];
  const report = (message: { problem: string; fix: string }) => diagnostics.push({ where, ...message });
  if (typeof options.uri !== 'string' || !UI_URI.test(options.uri)) report(AppsMessages.badUri(options.uri));
  checkCsp(options.csp, report);
  const { permissions, domain, prefersBorder, trustInlineScripts } = options;
  if (permissions !== undefined) {
    if (!Array.isArray(permissions)) report(AppsMessages.badList('permissions', permissions));
    else
      for (const permission of permissions.filter((p) => !PERMISSIONS.has(p)))
        report(AppsMessages.badPermission(permission));
  }
  if (domain !== undefined && (typeof domain !== 'string' || !HOST_NAME.test(domain)))
    report(AppsMessages.badDomain(domain));
  if (prefersBorder !== undefined && typeof prefersBorder !== 'boolean')
    report(AppsMessages.badFlag('prefersBorder', prefersBorder));
  if (trustInlineScripts !== undefined && typeof trustInlineScripts !== 'boolean')
    report(AppsMessages.badFlag('trustInlineScripts', trustInlineScripts));
  const scripts = readScripts(options.scripts, report);
  if (diagnostics.length > 0) return { diagnostics };
  const view = new ViewDocument(options, scripts);
  COMPILED.set(options, view);
  return { view, diagnostics };
}

/**
 * The compiled view of these options (compiled now, when start-up did not: a host used without
 * the apps checks). @throws McpStartupError-like `Error` naming every problem
 */
export function compiledView(options: McpViewOptions, where: string): CompiledView {
  const compiled = COMPILED.get(options);
  if (compiled) return compiled;
  const { view, diagnostics } = compileView(options, where);
  if (!view) throw new Error(diagnostics.map((d) => `${d.where}: ${d.problem} (fix: ${d.fix})`).join('; '));
  return view;
}

function checkCsp(csp: McpViewCsp | undefined, report: (message: { problem: string; fix: string }) => void): void {
  if (csp === undefined) return;
  if (typeof csp !== 'object' || csp === null) return report(AppsMessages.badList('csp', csp));
  for (const key of Object.keys(csp)) {
    if (!(CSP_KEYS as readonly string[]).includes(key)) report(AppsMessages.unknownCsp(key));
  }
  for (const key of CSP_KEYS) {
    const origins = csp[key];
    if (origins === undefined) continue;
    if (!Array.isArray(origins) || origins.some((origin) => typeof origin !== 'string')) {
      report(AppsMessages.badList(`csp.${key}`, origins));
      continue;
    }
    for (const origin of origins.filter((o) => !ORIGIN.test(o))) report(AppsMessages.badOrigin(`csp.${key}`, origin));
  }
}

function readScripts(
  scripts: McpViewOptions['scripts'],
  report: (message: { problem: string; fix: string }) => void,
): string[] {
  if (scripts === undefined) return [];
  if (!Array.isArray(scripts)) {
    report(AppsMessages.badList('scripts', scripts));
    return [];
  }
  return scripts.map((script, index) => {
    const { source: given, file } = (typeof script === 'object' && script !== null ? script : {}) as {
      source?: unknown;
      file?: unknown;
    };
    let source: string | undefined;
    try {
      if (typeof given === 'string') source = given;
      else if (typeof given === 'function') source = String(given());
      else if (typeof file === 'string') source = readFileSync(file, 'utf8');
      else report(AppsMessages.badScript(index));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      report(AppsMessages.unreadableScript(index, typeof file === 'string' ? file : 'its source', reason));
    }
    if (source !== undefined && SCRIPT_END.test(source)) report(AppsMessages.scriptEndTag(index));
    return source ?? '';
  });
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The document of one view: policy and script elements written once, the HTML put between them per read. */
class ViewDocument implements CompiledView {
  readonly meta: McpViewMeta;
  private readonly scriptElements: string;
  private readonly scriptHashes: string[];
  private readonly trustInline: boolean;
  private readonly csp: McpViewCsp;
  /** The last HTML served and its document: a static view is rendered once. */
  private last: { html: string; document: string } | undefined;

  constructor(options: McpViewOptions, scripts: readonly string[]) {
    this.meta = resourceUiMeta(options);
    this.csp = options.csp ?? {};
    this.trustInline = options.trustInlineScripts === true;
    this.scriptHashes = scripts.map(sha256);
    this.scriptElements = scripts.map((source) => `<script type="module">${source}</script>`).join('\n');
  }

  render(html: string): string {
    if (this.last?.html === html) return this.last.document;
    const inline = this.trustInline ? [...html.matchAll(INLINE_SCRIPT)].map((match) => sha256(match[1])) : [];
    const meta = `<meta http-equiv="Content-Security-Policy" content="${this.policy(inline)}">`;
    const withPolicy = insertAfterHead(html, meta);
    const end = withPolicy.search(/<\/body\s*>(?![\s\S]*<\/body)/i);
    const document =
      this.scriptElements === ''
        ? withPolicy
        : end < 0
          ? `${withPolicy}\n${this.scriptElements}`
          : `${withPolicy.slice(0, end)}${this.scriptElements}\n${withPolicy.slice(end)}`;
    this.last = { html, document };
    return document;
  }

  /**
   * Nothing but what the view declared: its scripts by hash, its origins per directive; inline
   * styles are allowed (they run no code), forms, plugins and base changes are not.
   */
  private policy(inlineHashes: readonly string[]): string {
    const { connectDomains = [], resourceDomains = [], frameDomains = [], baseUriDomains = [] } = this.csp;
    const list = (...sources: string[]) => (sources.length > 0 ? sources.join(' ') : "'none'");
    return [
      "default-src 'none'",
      `script-src ${list(...this.scriptHashes, ...inlineHashes, ...resourceDomains)}`,
      `style-src ${list("'unsafe-inline'", ...resourceDomains)}`,
      `img-src ${list('data:', 'blob:', ...resourceDomains)}`,
      `font-src ${list('data:', ...resourceDomains)}`,
      `media-src ${list('data:', 'blob:', ...resourceDomains)}`,
      `connect-src ${list(...connectDomains)}`,
      `frame-src ${list(...frameDomains)}`,
      `base-uri ${list(...baseUriDomains)}`,
      "form-action 'none'",
      "object-src 'none'",
    ].join('; ');
  }
}

/** `html` with `element` first in its `<head>` (one is made when there is none). */
function insertAfterHead(html: string, element: string): string {
  const head = /<head\b[^>]*>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + element + html.slice(head.index + head[0].length);
  const root = /<html\b[^>]*>/i.exec(html);
  if (root)
    return (
      html.slice(0, root.index + root[0].length) + `<head>${element}</head>` + html.slice(root.index + root[0].length)
    );
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return `${html.slice(0, at)}<head>${element}</head>${html.slice(at)}`;
}
