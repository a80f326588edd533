import type { OptionReport } from '#libs/core';
import { INVOCATION_APPROVAL_KEYS } from '#libs/invocation';

/** Who decides approval requests and who hears of them (the `approvals` option's policy part). */
export interface ApprovalPolicy {
  /** Without a trailing slash. */
  publicUrl: string | undefined;
  roles: readonly string[];
  scopes: readonly string[];
  allowSelfApproval: boolean;
  webhook: { url: string; secret: string | undefined; headers: Record<string, string>; timeoutMs: number } | undefined;
  /**
   * The approval page a host serving stdio without HTTP listens with on 127.0.0.1 (it has no
   * dashboard); `undefined`: none. `port` 0 is any free port; `always`: even when no tool needs
   * confirmation at start-up.
   */
  stdioPage: { port: number; always: boolean } | undefined;
}

const APPROVAL_KEYS = new Set<string>([
  ...INVOCATION_APPROVAL_KEYS,
  'publicUrl',
  'approverRoles',
  'approverScopes',
  'allowSelfApproval',
  'webhook',
  'stdioPage',
]);

/**
 * Validates the `approvals` option's policy part and merges its defaults: who decides requests,
 * where they are announced, and the page of a stdio host (how long they wait: the invocation
 * slice).
 * @param report called once per problem, with how to fix it
 * @example
 * ```ts
 * resolveApprovalPolicy({ allowSelfApproval: true }, { http: true, stdio: false, authMode: 'apiKey' }, report);
 * ```
 */
export function resolveApprovalPolicy(
  value: unknown,
  context: { http: boolean; stdio: boolean; authMode: string },
  report: OptionReport,
): ApprovalPolicy {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report(
      'approvals',
      `must be an object, got ${JSON.stringify(value)}`,
      "e.g. approvals: { ttlMs: 600_000, publicUrl: 'https://mcp.example.com' }",
    );
  }
  const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!APPROVAL_KEYS.has(key))
      report(
        `approvals.${key}`,
        'is not a known option',
        `remove it; approvals takes ${[...APPROVAL_KEYS].join(', ')}`,
      );
  }
  const publicUrl = o.publicUrl;
  if (
    publicUrl !== undefined &&
    (typeof publicUrl !== 'string' || !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(publicUrl))
  ) {
    report(
      'approvals.publicUrl',
      `${JSON.stringify(publicUrl)} is not an http(s) URL without query`,
      "e.g. publicUrl: 'https://mcp.desk.example'",
    );
  }
  const names = (key: 'approverRoles' | 'approverScopes', fallback: string[]) => {
    const list = o[key] ?? fallback;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || !item)) {
      report(`approvals.${key}`, 'must be an array of non-empty strings', `e.g. ${key}: ${JSON.stringify(fallback)}`);
      return fallback;
    }
    return list as string[];
  };
  // Without authentication every caller is the one local operator: nobody else could decide.
  const allowSelfApproval = o.allowSelfApproval ?? context.authMode === 'none';
  if (typeof allowSelfApproval !== 'boolean')
    report(
      'approvals.allowSelfApproval',
      'must be true or false',
      'set allowSelfApproval: false (an approver other than the caller decides), or true when the caller is a person at their own machine',
    );
  const webhook = o.webhook as Record<string, unknown> | undefined;
  if (webhook !== undefined) {
    if (
      typeof webhook !== 'object' ||
      webhook === null ||
      typeof webhook.url !== 'string' ||
      !URL.canParse(webhook.url) ||
      !/^https?:/.test(webhook.url)
    ) {
      report(
        'approvals.webhook',
        'needs "url": an http(s) URL',
        "e.g. webhook: { url: 'https://chatops.example.com/mcp-approvals', secret: process.env.APPROVAL_WEBHOOK_SECRET }",
      );
    } else if (webhook.secret !== undefined && (typeof webhook.secret !== 'string' || webhook.secret.length < 16)) {
      report(
        'approvals.webhook.secret',
        'must be a string of at least 16 characters',
        'generate one, e.g. `openssl rand -hex 24`',
      );
    }
    if (
      webhook !== null &&
      typeof webhook === 'object' &&
      webhook.timeoutMs !== undefined &&
      (!Number.isInteger(webhook.timeoutMs) || (webhook.timeoutMs as number) < 1)
    )
      report(
        'approvals.webhook.timeoutMs',
        `must be a positive integer (ms), got ${JSON.stringify(webhook.timeoutMs)}`,
        'leave it out for 5000: the whole delivery, the answer included, must take no longer',
      );
  }
  return {
    publicUrl: typeof publicUrl === 'string' ? publicUrl.replace(/\/+$/, '') : undefined,
    roles: names('approverRoles', ['admin', 'approver']),
    scopes: names('approverScopes', ['mcp:admin', 'mcp:approve']),
    allowSelfApproval: allowSelfApproval === true,
    webhook:
      webhook && typeof webhook.url === 'string'
        ? {
            url: webhook.url,
            secret: typeof webhook.secret === 'string' ? webhook.secret : undefined,
            headers: (webhook.headers as Record<string, string> | undefined) ?? {},
            timeoutMs:
              Number.isInteger(webhook.timeoutMs) && (webhook.timeoutMs as number) > 0
                ? (webhook.timeoutMs as number)
                : 5_000,
          }
        : undefined,
    stdioPage: resolveStdioPage(o.stdioPage, context, report),
  };
}

const STDIO_PAGE_KEYS = new Set(['port']);

/**
 * The approval page of a host that serves stdio without HTTP: on by default (when a tool needs
 * confirmation), `true` or `{ port }` always, `false` off. Meaningless with HTTP (the dashboard
 * has the page) or without stdio.
 */
function resolveStdioPage(
  value: unknown,
  context: { http: boolean; stdio: boolean },
  report: OptionReport,
): ApprovalPolicy['stdioPage'] {
  const served = context.stdio && !context.http;
  if (value === false) return undefined;
  if (value === undefined) return served ? { port: 0, always: false } : undefined;
  if (value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report(
      'approvals.stdioPage',
      `must be true, false or an object, got ${JSON.stringify(value)}`,
      'e.g. stdioPage: { port: 7411 }, stdioPage: true (any free port), or stdioPage: false to serve none',
    );
    return undefined;
  }
  const page = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(page)) {
    if (!STDIO_PAGE_KEYS.has(key))
      report(`approvals.stdioPage.${key}`, 'is not a known option', 'remove it; stdioPage takes port');
  }
  const port = page.port ?? 0;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    report(
      'approvals.stdioPage.port',
      `must be an integer from 0 to 65535, got ${JSON.stringify(port)}`,
      'e.g. stdioPage: { port: 7411 }, or leave port out (or 0) for any free port',
    );
  }
  if (!served) {
    report(
      'approvals.stdioPage',
      context.http
        ? 'only applies to a host without HTTP: with HTTP the approval page is the admin dashboard’s'
        : 'only applies to a host that serves stdio',
      context.http
        ? 'remove it, and reach the approval page at <admin path>#approval=<id> on the HTTP server'
        : 'remove it, or set stdio: true and http: false',
    );
    return undefined;
  }
  return { port: typeof port === 'number' ? port : 0, always: true };
}
