import type { ComposedServer } from '../document/composed-server';

/** Where the host's own endpoints are: a composed server's path must be none of them. @internal */
export interface ReservedPaths {
  /** The host's MCP path: composed servers sit under it (`/mcp/finance`), so they shadow no route of the app. */
  readonly mcpPath: string;
  /** The paths of the application's MCP endpoints (every `McpModule`), taken already. */
  taken(): readonly string[];
  /** Whether the host's callers authenticate with OAuth (a server may then have a resource of its own). */
  readonly oauth: boolean;
  /**
   * The host's own routes (the admin dashboard and API, metrics, health probes, the authorization
   * server, the connect flow): a composed server at one of them, or under one, would answer in its
   * place, in front of the framework.
   */
  routes?(): readonly HostRoute[];
}

/** One of the host's own routes, or the prefix of several: its path and what it serves. @internal */
export interface HostRoute {
  readonly path: string;
  /** `the admin dashboard and API`, for the message. */
  readonly what: string;
}

const SERVER_KEYS = new Set(['name', 'path', 'title', 'description', 'credentials', 'select', 'limits']);
const CREDENTIAL_KEYS = new Set(['scopes', 'roles', 'apiKeys', 'resource']);
const ITEM_KEYS = new Set(['from', 'name', 'entries', 'scopes', 'roles']);
const ORIGINS = new Set(['local', 'rest', 'api', 'upstream']);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const PATH_SEGMENTS = /^(?:\/[A-Za-z0-9._~-]+)+$/;
const HASH = /^sha256:[0-9a-f]{64}$/;

type Report = (where: string, problem: string, fix: string) => void;

/**
 * Validates the composed servers of a document, every problem at once: the fields of each, a
 * name and a path of its own (under the host's MCP path, not an endpoint's), a well-formed
 * selection naming upstreams there are, credentials as the API keys file has them.
 * @param known the names of the upstreams and of the APIs (the options' and the document's)
 */
export function validateServers(
  list: unknown,
  reserved: ReservedPaths,
  known: { upstreams: ReadonlySet<string>; apis: ReadonlySet<string> },
  report: Report,
): void {
  if (list === undefined) return;
  if (!Array.isArray(list))
    return report('servers', 'must be an array', 'send "servers": [ { "name", "path", "select" } ]');
  const names = new Set<string>();
  const paths = new Set<string>();
  const taken = new Set(reserved.taken().map(canonicalPath));
  const routes = (reserved.routes?.() ?? []).map((route) => ({ ...route, canonical: canonicalPath(route.path) }));
  for (const [index, given] of list.entries()) {
    const where = `servers[${index}]`;
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      report(where, 'must be an object', 'give { "name", "path", "select" }');
      continue;
    }
    const server = given as Partial<ComposedServer> & Record<string, unknown>;
    for (const key of Object.keys(server))
      if (!SERVER_KEYS.has(key))
        report(
          `${where}.${key}`,
          'is not a field of a server',
          `remove it; the fields are ${[...SERVER_KEYS].join(', ')}`,
        );
    if (typeof server.name !== 'string' || !NAME.test(server.name))
      report(`${where}.name`, 'must be 1-64 letters, digits, _ . -', 'e.g. "finance"');
    else if (names.has(server.name))
      report(`${where}.name`, `"${server.name}" is taken by another server`, 'give each server a name of its own');
    else names.add(server.name);
    checkPath(server.path, `${where}.path`, reserved, { taken, routes, paths }, report);
    for (const field of ['title', 'description'] as const)
      if (server[field] !== undefined && (typeof server[field] !== 'string' || !server[field]))
        report(`${where}.${field}`, 'must be a non-empty string', `leave ${field} out, or describe the server`);
    checkCredentials(server.credentials, `${where}.credentials`, report);
    checkResource(server, `${where}.credentials.resource`, reserved, report);
    checkSelection(server.select, `${where}.select`, server.name, known, report);
    const limits = server.limits as Record<string, unknown> | undefined;
    if (limits !== undefined) {
      if (typeof limits !== 'object' || limits === null || Object.keys(limits).some((key) => key !== 'callsPerMinute'))
        report(`${where}.limits`, 'must be { "callsPerMinute": n }', 'e.g. "limits": { "callsPerMinute": 120 }');
      else if (
        limits.callsPerMinute !== undefined &&
        (!Number.isInteger(limits.callsPerMinute) || (limits.callsPerMinute as number) < 1)
      )
        report(
          `${where}.limits.callsPerMinute`,
          'must be a positive integer',
          'e.g. 120, or leave it out for no limit of its own',
        );
    }
  }
}

/**
 * How paths are compared: case aside (Express routes ignore case by default, so `/mcp/Admin`
 * reaches a route at `/mcp/admin` there).
 */
const canonicalPath = (path: string): string => path.toLowerCase();

/**
 * A server's path: `/`-separated segments of unreserved characters (no `%`: nothing encoded; no
 * empty segment: no `//`), no `.` or `..` segment (a client or a proxy that resolves it would
 * reach another path than the one served), under the host's MCP path, and compared in canonical
 * form with the application's MCP endpoints, the host's own routes and the other servers.
 */
function checkPath(
  path: unknown,
  where: string,
  reserved: ReservedPaths,
  others: {
    taken: ReadonlySet<string>;
    routes: readonly (HostRoute & { canonical: string })[];
    paths: Set<string>;
  },
  report: Report,
): void {
  const under = `${reserved.mcpPath}/`;
  if (typeof path !== 'string' || !PATH_SEGMENTS.test(path)) {
    report(
      where,
      'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)',
      `e.g. "${under}finance"`,
    );
    return;
  }
  const canonical = canonicalPath(path);
  const route = others.routes.find(
    ({ canonical: prefix }) => canonical === prefix || canonical.startsWith(`${prefix}/`),
  );
  if (path.split('/').some((segment) => segment === '.' || segment === '..'))
    report(
      where,
      `${path} has a "." or ".." segment: a client or proxy that resolves it reaches another path`,
      `give the path without dot segments, e.g. "${under}finance"`,
    );
  else if (!path.startsWith(under))
    report(where, `must be under the host's MCP path ${reserved.mcpPath}`, `e.g. "${under}finance"`);
  else if (route)
    report(
      where,
      `${path} is ${canonical === route.canonical ? 'the path' : 'under the path'} of ${route.what} (${route.path})`,
      'choose a path that is none of the host’s own routes',
    );
  else if (others.taken.has(canonical))
    report(where, `${path} is the path of an MCP endpoint of the application`, 'choose another path');
  else if (others.paths.has(canonical))
    report(where, `${path} is taken by another server`, 'give each server a path of its own');
  others.paths.add(canonical);
}

/** An OAuth resource: on an OAuth host, the absolute http(s) URL of the server's own path, not with keys of its own. */
function checkResource(server: Partial<ComposedServer>, where: string, reserved: ReservedPaths, report: Report): void {
  const resource = (server.credentials as { resource?: unknown } | undefined)?.resource;
  if (resource === undefined) return;
  if (!reserved.oauth)
    return report(where, 'only applies on a host whose callers authenticate with OAuth', 'remove it');
  let url: URL | undefined;
  try {
    url = typeof resource === 'string' ? new URL(resource) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.pathname !== server.path)
    report(
      where,
      `must be the absolute http(s) URL of the server's path${typeof server.path === 'string' ? ` (…${server.path})` : ''}, without query or fragment`,
      `e.g. "https://desk.example${typeof server.path === 'string' ? server.path : '/mcp/finance'}"`,
    );
  if (server.credentials?.apiKeys !== undefined)
    report(where, 'and apiKeys exclude each other', 'keep the keys, or the OAuth resource');
}

function checkCredentials(given: unknown, where: string, report: Report): void {
  if (given === undefined) return;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return report(where, 'must be an object', 'e.g. "credentials": { "scopes": ["finance"] }');
  const credentials = given as Record<string, unknown>;
  for (const key of Object.keys(credentials))
    if (!CREDENTIAL_KEYS.has(key))
      report(`${where}.${key}`, 'is not a field of credentials', 'the fields are scopes, roles, apiKeys');
  checkWords(credentials.scopes, `${where}.scopes`, report);
  checkWords(credentials.roles, `${where}.roles`, report);
  if (credentials.apiKeys === undefined) return;
  if (!Array.isArray(credentials.apiKeys) || credentials.apiKeys.length === 0)
    return report(`${where}.apiKeys`, 'must be a non-empty array', 'leave it out for the host’s own authentication');
  const principals = new Set<string>();
  for (const [index, key] of (credentials.apiKeys as Record<string, unknown>[]).entries()) {
    const at = `${where}.apiKeys[${index}]`;
    if (typeof key !== 'object' || key === null) {
      report(at, 'must be { "principal", "hash" }', 'as in the API keys file');
      continue;
    }
    if (typeof key.principal !== 'string' || !key.principal)
      report(`${at}.principal`, 'must be a non-empty string', 'who calls with this key');
    else if (principals.has(key.principal))
      report(`${at}.principal`, `"${key.principal}" has another key here`, 'one key per principal');
    else principals.add(key.principal);
    if (typeof key.hash !== 'string' || !HASH.test(key.hash))
      report(
        `${at}.hash`,
        'must be sha256:<64 hex digits>, the hash of the key',
        'the hash as the API keys file has it (README: API keys); never the key itself',
      );
    checkWords(key.scopes, `${at}.scopes`, report);
    checkWords(key.roles, `${at}.roles`, report);
  }
}

function checkSelection(
  given: unknown,
  where: string,
  server: unknown,
  known: { upstreams: ReadonlySet<string>; apis: ReadonlySet<string> },
  report: Report,
): void {
  if (!Array.isArray(given) || given.length === 0)
    return report(where, 'must be a non-empty array', 'e.g. "select": [{ "from": "local", "entries": ["search_*"] }]');
  for (const [index, item] of (given as Record<string, unknown>[]).entries()) {
    const at = `${where}[${index}]`;
    if (typeof item !== 'object' || item === null) {
      report(at, 'must be an object', 'e.g. { "from": "upstream", "name": "crm" }');
      continue;
    }
    for (const key of Object.keys(item))
      if (!ITEM_KEYS.has(key))
        report(`${at}.${key}`, 'is not a field of a selection', 'the fields are from, name, entries, scopes, roles');
    if (typeof item.from !== 'string' || !ORIGINS.has(item.from))
      report(`${at}.from`, 'must be local, rest, api or upstream', 'where the entries come from');
    if (item.name !== undefined) {
      if (item.from !== 'api' && item.from !== 'upstream')
        report(`${at}.name`, 'only names an API or an upstream', 'remove it, or select from "api" or "upstream"');
      else if (typeof item.name !== 'string' || !item.name)
        report(`${at}.name`, 'must be a non-empty string', 'the API’s or the upstream’s name');
      else {
        const [names, what] = item.from === 'upstream' ? [known.upstreams, 'upstream'] : [known.apis, 'API'];
        if (!names.has(item.name))
          report(
            `${at}.name`,
            `no ${what} is named "${item.name}"${typeof server === 'string' ? ` (the composed server "${server}" selects it)` : ''}`,
            `add the ${what} "${item.name}" first, or select one there is${names.size > 0 ? ` (${[...names].join(', ')})` : ''}`,
          );
      }
    }
    checkWords(item.entries, `${at}.entries`, report, true);
    checkWords(item.scopes, `${at}.scopes`, report);
    checkWords(item.roles, `${at}.roles`, report);
  }
}

function checkWords(given: unknown, where: string, report: Report, nonEmpty = false): void {
  if (given === undefined) return;
  if (
    !Array.isArray(given) ||
    given.some((word) => typeof word !== 'string' || !word) ||
    (nonEmpty && given.length === 0)
  )
    report(where, `must be an array of ${nonEmpty ? 'one or more ' : ''}non-empty strings`, 'e.g. ["tickets:read"]');
}
