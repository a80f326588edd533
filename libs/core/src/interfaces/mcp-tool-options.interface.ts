import type { McpCacheOptions } from './mcp-cache-options.interface';
import type { SchemaSource } from './schema-source.interface';

/** Hints about a tool's behaviour, as defined by the MCP spec (`ToolAnnotations`). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** An icon a client may show for a tool. */
export interface McpIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/**
 * What happens to arguments the input schema does not declare: `refuse` answers the call with
 * an `isError` result naming each one, `strip` drops them before the tool sees them, `allow`
 * passes them on (the schema's own validator decides).
 */
export type McpUnknownArguments = 'refuse' | 'strip' | 'allow';

/**
 * How a tool's arguments are given on the command line (`call <tool> [args]`). Without it, each
 * top-level property of the input schema is an option `--kebab-case` (its original camelCase or
 * snake_case spelling works too, long options ignore case), booleans take `--flag`/`--no-flag`,
 * and no argument is positional. The host checks the declaration against the input schema at
 * start-up: a name of no property, two properties sharing an option, a malformed alias or an
 * option the CLI keeps for itself (`--help`, `-h`, `--json`, `--output`, `--out-dir`, `--yes`,
 * `--api-key`) stop the app with the fix.
 *
 * @example
 * ```ts
 * @McpTool({
 *   name: 'close_ticket',
 *   description: 'Closes a ticket with a resolution.',
 *   // desk call close_ticket T-2001 -r 'Refunded the invoice'
 *   cli: { positional: ['ticketId'], aliases: { resolution: '-r' } },
 * })
 * ```
 */
export interface McpToolCliOptions {
  /**
   * Properties taken from positional arguments, in order, e.g. `['ticketId']`. They can still be
   * given as options. An array property takes every remaining argument, so only the last may be
   * one; an object property cannot be positional.
   */
  positional?: string[];
  /** Extra option names per property: `{ status: ['-s', '--st'] }` (short `-x` or long `--xx`). */
  aliases?: Record<string, string | string[]>;
  /**
   * The CLI name of a property in place of its kebab-case name (and its original spelling):
   * `{ ticketId: 'id' }` → `--id`. Written without dashes.
   */
  names?: Record<string, string>;
}

/** Who may call a tool that has a view: the model (listed to it), the view (`app`), or both. */
export type McpToolVisibility = 'model' | 'app';

/**
 * The view of a tool (MCP Apps, `io.modelcontextprotocol/ui`): a client that renders views shows
 * the `ui://` resource declared with `@McpView` beside the tool's result, and the view may call
 * the server's tools through the client. A client that renders none gets the same tool and its
 * text content.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Returns one ticket', ui: { resource: 'ui://desk/ticket-card' } })
 * // callable from its view only, never listed to the model:
 * @McpTool({ description: 'Ticket history for the card', ui: { visibility: ['app'] } })
 * ```
 */
export interface McpToolUi {
  /** The `ui://` URI of the view (a `@McpView` of this app); checked at start-up. */
  resource?: string;
  /**
   * `['app']`: callable from views only, listed only to clients that render views (which keep it
   * from the model); a client that renders none neither sees nor may call it. @default ['model', 'app']
   */
  visibility?: McpToolVisibility[];
}

/**
 * Options of `@McpTool()`.
 *
 * @example
 * ```ts
 * @McpTool({
 *   name: 'close_ticket',
 *   description: 'Closes a ticket with a resolution the customer can read.',
 *   annotations: { destructiveHint: true, idempotentHint: true },
 *   timeoutMs: 5_000,
 * })
 * ```
 */
export interface McpToolOptions {
  /** Tool name; defaults to the method name. 1–128 characters of `A-Z a-z 0-9 _ - .` */
  name?: string;
  /** Human-readable name shown by clients. */
  title?: string;
  /** What the tool does, written for the model. Required. */
  description: string;
  annotations?: McpToolAnnotations;
  icons?: McpIcon[];
  /**
   * Input schema when the `@McpArgs()` parameter is not typed with a DTO class:
   * a zod 4 schema or a raw JSON Schema (a DTO class is accepted here too).
   */
  input?: SchemaSource;
  /** Output schema: the returned object becomes `structuredContent`, validated against it. */
  output?: SchemaSource;
  /**
   * Have a person confirm every call before it runs: the user in the client when it can show a
   * form (elicitation), otherwise an approval request held by the host until the user (sent to
   * the approval page by URL-mode elicitation) or an approver decides it; the model's retry of
   * the same call then runs once. `true` uses a generated question; a string is the question.
   * Tools with `destructiveHint` need it anyway when `McpModule` is configured with
   * `confirmDestructive: true`; `false` opts out.
   * @example
   * ```ts
   * @McpTool({ description: 'Refunds an order', confirm: 'Refund this order to the customer?' })
   * ```
   */
  confirm?: boolean | string;
  /**
   * Whether the tool runs as a task. 2025-11-25 (experimental tasks): `optional` lets clients
   * choose, `required` refuses plain calls; results are fetched with `tasks/result`. 2026-07-28
   * (the `io.modelcontextprotocol/tasks` extension): the host answers a client that declared the
   * extension with a task for either value, a client that did not gets the result at once
   * (`optional`) or `-32021` naming the extension (`required`); results come inlined in
   * `tasks/get`. @default not offered
   */
  task?: 'optional' | 'required';
  /**
   * Where a task begins for a 2026-07-28 client: `call` before the handler runs, `manual` where
   * the handler calls `ctx.continueAsTask()` (input it asks for before that is answered within
   * the `tools/call`, by input-required rounds). Only with `task`. @default 'call'
   */
  taskStart?: 'call' | 'manual';
  /** Abort the call (its `AbortSignal` fires) and answer `isError` after this long. @default McpModule `toolTimeoutMs` (30 s) */
  timeoutMs?: number;
  /** At most this many calls of the tool run at once; more are answered `isError` (busy). @default unlimited */
  maxConcurrency?: number;
  /** Arguments the input schema does not declare. @default McpModule `unknownArguments` ('refuse') */
  unknownArguments?: McpUnknownArguments;
  /**
   * Caching hints of `tools/list` for 2026-07-28 clients: a list is fresh for its entries' shortest
   * `ttlMs`, and `public` only when every entry is. @default McpModule `cache`, else `{ ttlMs: 0, scope: 'private' }`
   */
  cache?: McpCacheOptions;
  /** How the tool's arguments are given on the command line. @default options named after the properties */
  cli?: McpToolCliOptions;
  /** Its view and who may call it (MCP Apps); published as `_meta.ui`. @default no view, visible to all */
  ui?: McpToolUi;
  /** Extra `_meta` published with the tool definition. */
  _meta?: Record<string, unknown>;
}
