import { optionChecks, type OptionReport } from '#libs/core';
import {
  resolveDownstreamCredential,
  type DownstreamCredential,
  type McpDownstreamCredential,
} from '#libs/downstream-identity';
import { resolvePinOption, type McpPinOption, type PinScope } from '#libs/governance';
import type { RestRemoteCredentials } from '../execution/remote-credentials';
import { resolveRouteRules, TOOL_PREFIX, type McpRestRouteRules } from './route-rules.options';
import {
  DEFAULT_REST_CONFIRM,
  resolveRestConfirm,
  type McpRestConfirmOptions,
  type McpRestConfirmPolicy,
  type RestConfirmOptions,
} from './rest-confirm.options';

/**
 * An external REST API exposed as MCP tools (an entry of the `rest.apis` option): its OpenAPI
 * 3.x document is mapped exactly as the app's own routes are, and each call is an HTTP request
 * to `baseUrl` with the API's `credentials` (never the MCP caller's). The document is read once,
 * at start-up; a document that cannot be read or mapped stops the start with the reason.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   name: 'desk', version: '1.0.0',
 *   rest: {
 *     apis: [{
 *       name: 'petstore',
 *       document: './openapi/petstore.yaml', // or 'https://petstore3.swagger.io/api/v3/openapi.json', or the parsed object
 *       baseUrl: 'https://petstore3.swagger.io/api/v3',
 *       credentials: { apiKey: { in: 'header', name: 'api_key', value: process.env.PETSTORE_KEY! } },
 *       operations: { tags: ['pet'] },
 *       exclude: { operationIds: ['deletePet'] },
 *       prefix: 'petstore_',
 *       scopes: ['pets:read'],
 *       confirm: { ask: { operationIds: ['addPet'] }, skip: { operationIds: ['updatePet'] } },
 *     }],
 *   },
 * })
 * ```
 */
export interface McpRestApiOptions {
  /** Names the API in logs, start-up errors, audit records (`petstore: GET /pet/{petId}`) and `_meta`. */
  name: string;
  /**
   * The OpenAPI 3.0/3.1 document: a file path (relative to the working directory), an http(s)
   * URL (fetched without credentials), or the parsed object. JSON, or YAML with the `yaml`
   * package installed.
   */
  document: string | Record<string, unknown>;
  /**
   * Where requests go, with the API's base path (`https://api.example.com/v1`). Default: the
   * document's first server, a relative one resolved against the document's URL.
   */
  baseUrl?: string;
  /** How the host authenticates to the API; sent with every request, to its origin only. */
  credentials?: RestRemoteCredentials;
  /** Operations exposed (default: all of them). */
  operations?: McpRestRouteRules;
  /** Operations never exposed. */
  exclude?: McpRestRouteRules;
  /** Put before every tool name of this API (`petstore_` → `petstore_getPetById`). */
  prefix?: string;
  /** Scopes a caller must all hold to see and call this API's tools. */
  scopes?: string[];
  /** Roles one of which a caller must hold to see and call this API's tools. */
  roles?: string[];
  /** The longest a request may take, redirects and body included. @default 30000 */
  timeoutMs?: number;
  /** The largest response body accepted. @default 5242880 (5 MB) */
  maxResponseBytes?: number;
  /**
   * Which of the API's writes a person confirms before they run, as `rest.confirm` (whose
   * policy applies when this is not given; its `ask` / `skip` rules name the app's routes only).
   */
  confirm?: McpRestConfirmPolicy | McpRestConfirmOptions;
  /**
   * Who the API sees on a call: the host (`'service'`, with `credentials`), the caller by token
   * exchange (`'token-exchange'`: a token for the API with the caller as subject and the host as
   * actor), or the person's own connected account (`{ mode: 'user', … }`), sent as
   * `Authorization: Bearer …`. See docs/downstream-identity.md. @default 'service'
   * @example credential: { mode: 'token-exchange', audience: 'https://api.example.com' }
   */
  credential?: McpDownstreamCredential;
  /**
   * Pins the API's operations: each tool made from one is fingerprinted when first accepted, and
   * one whose description, schemas or annotations change when the document is read again is
   * quarantined until an approver accepts the difference; with `newEntries: 'hold'`, new
   * operations wait the same way (docs/governance.md, "Pinned catalogs"). Turns governance on.
   * @default false
   */
  pin?: McpPinOption;
}

/** `McpRestApiOptions` validated. */
export interface RestApiOptions {
  readonly name: string;
  readonly document: string | Record<string, unknown>;
  readonly baseUrl: string | undefined;
  readonly credentials: RestRemoteCredentials | undefined;
  readonly operations: McpRestRouteRules | undefined;
  readonly exclude: McpRestRouteRules | undefined;
  readonly prefix: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly confirm: RestConfirmOptions;
  /** Who the API sees on a call. */
  readonly credential: DownstreamCredential;
  /** `undefined`: not pinned. */
  readonly pin: PinScope | undefined;
  /** Where the API's options are (`rest.apis[0]`), for messages. */
  readonly where: string;
}

const API_KEYS = new Set([
  'name',
  'document',
  'baseUrl',
  'credentials',
  'operations',
  'exclude',
  'prefix',
  'scopes',
  'roles',
  'timeoutMs',
  'maxResponseBytes',
  'confirm',
  'credential',
  'pin',
]);
const CREDENTIAL_KEYS = new Set(['headers', 'bearer', 'basic', 'apiKey']);
const API_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A header name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Validates `rest.apis`: every problem is reported with its fix, and an API with a problem is
 * left out of the result.
 */
export function resolveRestApis(
  value: unknown,
  report: OptionReport,
  confirm: RestConfirmOptions = DEFAULT_REST_CONFIRM,
): RestApiOptions[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report('rest.apis', 'must be an array', "e.g. apis: [{ name: 'petstore', document: './petstore.yaml' }]");
    return [];
  }
  const names = new Set<string>();
  const apis: RestApiOptions[] = [];
  value.forEach((given: unknown, index) => {
    const where = `rest.apis[${index}]`;
    let problems = 0;
    const count: OptionReport = (option, problem, fix) => {
      problems++;
      report(option, problem, fix);
    };
    const api = resolveApi(given, where, count, confirm);
    // An invalid name is reported once, as invalid; only a valid one can name another API too.
    if (api && typeof api.name === 'string' && API_NAME.test(api.name)) {
      if (names.has(api.name))
        count(`${where}.name`, `"${api.name}" names another API too`, 'give each API its own name');
      names.add(api.name);
    }
    if (api && problems === 0) apis.push(api);
  });
  return apis;
}

function resolveApi(
  given: unknown,
  where: string,
  report: OptionReport,
  confirm: RestConfirmOptions,
): RestApiOptions | undefined {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report(where, 'must be an object', "e.g. { name: 'petstore', document: './petstore.yaml' }");
    return undefined;
  }
  const o = given as Record<string, unknown>;
  const check = optionChecks(o, report, `${where}.`);
  check.known(API_KEYS);
  const name = o.name;
  if (typeof name !== 'string' || !API_NAME.test(name))
    report(`${where}.name`, 'must be 1 to 64 letters, digits, "_" or "-"', "e.g. name: 'petstore'");
  const document = o.document;
  const documentOk =
    (typeof document === 'string' && document.trim() !== '') ||
    (typeof document === 'object' && document !== null && !Array.isArray(document));
  if (!documentOk)
    report(
      `${where}.document`,
      'must be a file path, an http(s) URL or the parsed OpenAPI document',
      "e.g. document: './openapi/petstore.yaml'",
    );
  const baseUrl = o.baseUrl;
  if (baseUrl !== undefined && !isHttpUrl(baseUrl))
    report(
      `${where}.baseUrl`,
      `must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
      "e.g. baseUrl: 'https://api.example.com/v1', or leave it out to use the document's server",
    );
  const prefix = o.prefix ?? '';
  if (typeof prefix !== 'string' || !TOOL_PREFIX.test(prefix))
    report(`${where}.prefix`, 'must be up to 64 letters, digits, "_", "-" or "."', "e.g. prefix: 'petstore_'");
  const list = (key: 'scopes' | 'roles'): string[] => {
    const value = o[key] ?? [];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) return [...value];
    report(`${where}.${key}`, 'must be an array of non-empty strings', `e.g. ${key}: ['pets:read']`);
    return [];
  };
  const credential = resolveDownstreamCredential(
    o.credential,
    `${where}.credential`,
    isHttpUrl(baseUrl) ? (baseUrl as string) : undefined,
    report,
  );
  const credentials = o.credentials as Record<string, unknown> | undefined;
  if (credential.mode !== 'service' && credentials && ('bearer' in credentials || 'basic' in credentials))
    report(
      `${where}.credential`,
      `'${credential.mode}' sets Authorization, and so do credentials.${'bearer' in credentials ? 'bearer' : 'basic'}`,
      "keep the caller's identity (credential) or the host's (credentials.bearer / basic), not both",
    );
  return {
    name: name as string,
    document: document as RestApiOptions['document'],
    credential,
    baseUrl: baseUrl as string | undefined,
    credentials: resolveCredentials(o.credentials, `${where}.credentials`, report),
    operations: resolveRouteRules(o.operations, `${where}.operations`, report),
    exclude: resolveRouteRules(o.exclude, `${where}.exclude`, report),
    prefix: typeof prefix === 'string' ? prefix : '',
    scopes: list('scopes'),
    roles: list('roles'),
    timeoutMs: check.integer('timeoutMs', 30_000, 1, 600_000),
    maxResponseBytes: check.integer('maxResponseBytes', 5 * 1024 * 1024, 1),
    confirm: resolveRestConfirm(o.confirm, `${where}.confirm`, report, confirm),
    pin: resolvePinOption(o.pin, `${where}.pin`, report),
    where,
  };
}

function resolveCredentials(value: unknown, where: string, report: OptionReport): RestRemoteCredentials | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(where, 'must be an object', 'e.g. credentials: { bearer: process.env.API_TOKEN }');
    return undefined;
  }
  const o = value as Record<string, unknown>;
  optionChecks(o, report, `${where}.`).known(CREDENTIAL_KEYS, 'kinds of credentials');
  // A value read from an unset environment variable is the usual cause, so the fix says so.
  const secret = (key: string, text: unknown, example: string) => {
    if (typeof text === 'string' && text !== '') return true;
    report(
      `${where}.${key}`,
      'must be a non-empty string',
      `e.g. ${example}; is the environment variable it comes from set?`,
    );
    return false;
  };
  // A key given with no value (`bearer: process.env.UNSET`) is a mistake, not "no credentials".
  if ('headers' in o) {
    const headers = o.headers;
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
      report(`${where}.headers`, 'must be an object of header names to values', "e.g. headers: { 'x-tenant': 'acme' }");
    else
      for (const [name, text] of Object.entries(headers)) {
        if (!HEADER_NAME.test(name))
          report(`${where}.headers`, `"${name}" is not a valid HTTP header name`, 'use letters, digits and "-"');
        secret(`headers.${name}`, text, `headers: { '${name}': process.env.HEADER_VALUE }`);
      }
  }
  if ('bearer' in o) secret('bearer', o.bearer, 'bearer: process.env.API_TOKEN');
  if ('basic' in o) {
    const basic = o.basic as Record<string, unknown> | null;
    if (typeof basic !== 'object' || basic === null)
      report(
        `${where}.basic`,
        'must be { username, password }',
        "e.g. basic: { username: 'svc', password: process.env.API_PASSWORD }",
      );
    else {
      secret('basic.username', basic.username, "basic: { username: 'svc', … }");
      // An empty password is allowed (some APIs take a key as the user name and no password).
      if (typeof basic.password !== 'string')
        report(
          `${where}.basic.password`,
          'must be a string',
          'e.g. password: process.env.API_PASSWORD; is the environment variable it comes from set?',
        );
    }
  }
  if ('apiKey' in o) {
    const key = o.apiKey as Record<string, unknown> | null;
    if (typeof key !== 'object' || key === null)
      report(
        `${where}.apiKey`,
        'must be { in, name, value }',
        "e.g. apiKey: { in: 'header', name: 'x-api-key', value: process.env.API_KEY }",
      );
    else {
      if (key.in !== 'header' && key.in !== 'query')
        report(`${where}.apiKey.in`, `must be 'header' or 'query', got ${JSON.stringify(key.in)}`, "e.g. in: 'header'");
      if (typeof key.name !== 'string' || !HEADER_NAME.test(key.name))
        report(`${where}.apiKey.name`, 'must be the header or query parameter name', "e.g. name: 'x-api-key'");
      secret('apiKey.value', key.value, 'value: process.env.API_KEY');
    }
  }
  if ('bearer' in o && 'basic' in o)
    report(where, 'has both bearer and basic, which both set Authorization', 'keep the one the API expects');
  return o as RestRemoteCredentials;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
