import { operationLabel, type RestDiagnostic } from './rest-diagnostic';
import type { RestOperation } from './rest-operation';

/** MCP's limit on a tool name's length (the spec's guidance, 2025-11-25). */
export const MAX_TOOL_NAME_LENGTH = 128;

/** Options of `nameTools`. */
export interface ToolNamingOptions {
  /** Put before every derived name (`petstore_` → `petstore_getPetById`); not before an override. */
  readonly prefix?: string;
  /**
   * Names chosen by hand, keyed by `operationId` or by `'METHOD /path'` (`'GET /pet/{petId}'`).
   * Used as written (no prefix, no sanitizing): one that breaks MCP's rules is reported.
   */
  readonly names?: Readonly<Record<string, string>>;
}

/** The name of each operation (same order), and every clash or bad override found. */
export interface ToolNamingResult {
  readonly names: string[];
  readonly diagnostics: RestDiagnostic[];
}

/** Names the bridge derives keep to `A-Z a-z 0-9 _ -` (dots are valid MCP but refused by some clients). */
const OVERRIDE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * `TicketsController_findOne` → itself; `pets.list` / `list pets` / `a/b` → `pets_list`,
 * `list_pets`, `a_b`: every character outside `A-Z a-z 0-9 _ -` becomes `_`, runs of `_`
 * collapse, leading and trailing `_` go, and the result is cut to `maxLength`.
 *
 * @example
 * ```ts
 * sanitizeToolName('pets.list'); // 'pets_list'
 * ```
 */
export function sanitizeToolName(raw: string, maxLength = MAX_TOOL_NAME_LENGTH): string {
  return raw
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, maxLength);
}

/**
 * The name an operation's tool takes, before clashes are looked at: its `operationId`
 * sanitized, or (without one, or one with nothing usable in it) its method and path:
 * `GET /api/tickets/{id}/comments` → `get_api_tickets_by_id_comments`. The prefix counts
 * toward MCP's 128 characters.
 *
 * @example
 * ```ts
 * toolNameOf({ method: 'get', path: '/api/tickets/{id}', operationId: 'TicketsController_findOne', … }); // 'TicketsController_findOne'
 * toolNameOf({ method: 'get', path: '/api/tickets/{id}', … }, 'desk_'); // 'desk_get_api_tickets_by_id'
 * ```
 */
export function toolNameOf(operation: RestOperation, prefix = ''): string {
  const room = Math.max(1, MAX_TOOL_NAME_LENGTH - prefix.length);
  const fromId = operation.operationId ? sanitizeToolName(operation.operationId, room) : '';
  if (fromId) return prefix + fromId;
  const segments = operation.path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/\{([^}]*)\}/g, 'by_$1'));
  return prefix + sanitizeToolName([operation.method, ...segments].join('_'), room);
}

/**
 * Names every operation's tool: an override from `options.names` when there is one, else
 * `toolNameOf(operation, options.prefix)`. Two operations ending on one name are reported as an
 * `error` naming both (method and path) and the fix; so is an override that breaks MCP's
 * naming rules. Names are returned all the same, in the operations' order.
 *
 * @example
 * ```ts
 * const { names, diagnostics } = nameTools(operations, { prefix: 'petstore_', names: { 'GET /pet/{petId}': 'pet' } });
 * ```
 */
export function nameTools(operations: readonly RestOperation[], options: ToolNamingOptions = {}): ToolNamingResult {
  const diagnostics: RestDiagnostic[] = [];
  const names = operations.map((operation) => {
    const override = overrideOf(operation, options.names);
    if (override === undefined) return toolNameOf(operation, options.prefix ?? '');
    if (!OVERRIDE_NAME.test(override)) {
      diagnostics.push({
        severity: 'error',
        where: `OpenAPI operation ${operationLabel(operation)}`,
        problem: `the name "${override}" set for it is not a valid MCP tool name`,
        fix: 'use 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."',
      });
    }
    return override;
  });
  const firstOf = new Map<string, number>();
  names.forEach((name, index) => {
    const first = firstOf.get(name);
    if (first === undefined) {
      firstOf.set(name, index);
      return;
    }
    const [a, b] = [operations[first], operations[index]];
    diagnostics.push({
      severity: 'error',
      where: `OpenAPI operation ${operationLabel(b)}`,
      problem: `its tool would be named "${name}", as is the tool of ${operationLabel(a)}`,
      fix:
        `give one of them another \`operationId\`, or a name of its own ` +
        `(names: { '${b.method.toUpperCase()} ${b.path}': '…' })`,
    });
  });
  return { names, diagnostics };
}

/** The hand-chosen name of an operation: by `operationId` first, then by `METHOD /path`. */
function overrideOf(operation: RestOperation, names: ToolNamingOptions['names']): string | undefined {
  if (!names) return undefined;
  const own = (key: string | undefined) =>
    key !== undefined && Object.prototype.hasOwnProperty.call(names, key) ? names[key] : undefined;
  return own(operation.operationId) ?? own(`${operation.method.toUpperCase()} ${operation.path}`);
}
