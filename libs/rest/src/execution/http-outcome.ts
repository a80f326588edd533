import { STATUS_CODES } from 'node:http';
import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { markCallFailure } from '#libs/invocation';
import type { RestArgumentTarget } from '../openapi/rest-operation';
import { errorDetailOf, type RestFieldError } from './error-fields';
import { RestExecutionMessages } from './rest-execution.messages';
import type { RestHttpOutcome } from './rest-http-outcome';
import { RestThrottledException, retryAfterSecondsOf } from './rest-throttled.exception';

/**
 * Where an error result of a REST-derived tool keeps the HTTP detail, in its `_meta`.
 *
 * @example
 * ```ts
 * const detail = result._meta?.[REST_RESULT_META] as RestErrorMeta | undefined;
 * for (const { field, messages } of detail?.fields ?? []) console.log(field, messages);
 * ```
 */
export const REST_RESULT_META = 'nest-mcp-host/rest';

/** The HTTP detail of a REST-derived tool's error result (`_meta[REST_RESULT_META]`). */
export interface RestErrorMeta {
  readonly status: number;
  /** The fields the route refused, each with its messages as the route wrote them. */
  readonly fields: readonly RestFieldError[];
  /** What the route said beside the fields (e.g. a problem's `detail`). */
  readonly messages: readonly string[];
}

/** How an outcome becomes a tool result. */
export interface ToToolResultOptions {
  /** True when the tool's `structuredContent` is `{ result: body }` (a non-object 2xx body). */
  readonly wrapsResult: boolean;
  /** How messages name the operation, e.g. `POST /api/tickets`. */
  readonly operationLabel: string;
  /** The tool's argument targets, to name refused fields as the tool's arguments. */
  readonly arguments?: Readonly<Record<string, RestArgumentTarget>>;
}

/** The longest part of a body quoted in a message. */
const QUOTE_LIMIT = 2_000;

/**
 * Maps what an HTTP request answered to the MCP tool's result:
 *
 * | status | result |
 * | --- | --- |
 * | 2xx with JSON | its compact JSON as text; the object (or `{ result: body }` when `wrapsResult`) as `structuredContent` |
 * | 2xx with text, image, audio | a text (with `structuredContent: { result }` when `wrapsResult`), image or audio block |
 * | 204, empty 2xx | the text `No content (204)` |
 * | 3xx | the text `Redirected (302) to <location>` |
 * | 400, 422 | `isError` result naming each refused field; `_meta["nest-mcp-host/rest"]` = `{ status, fields, messages }`; audited `invalid` |
 * | other 4xx (404, 409, …) | `isError` result with the route's message, same `_meta` |
 * | 401, 403 | throws `UnauthorizedException` / `ForbiddenException` with the route's message (classified `denied`) |
 * | 429 | throws `RestThrottledException` with `Retry-After` in seconds (classified `throttled`) |
 * | 5xx | throws an `Error` for the log (status and body); the client is told only that the call failed |
 *
 * @example
 * ```ts
 * const outcome = await runInProcess(adapter, parts, { user, signal });
 * return toToolResult(outcome, { wrapsResult: tool.wrapsResult, operationLabel: 'POST /api/tickets', arguments: tool.arguments });
 * ```
 * @throws UnauthorizedException on 401, ForbiddenException on 403, RestThrottledException on 429, Error on 5xx
 */
export function toToolResult(outcome: RestHttpOutcome, options: ToToolResultOptions): CallToolResult {
  const { status } = outcome;
  if (status >= 200 && status < 300) return successResult(outcome, options.wrapsResult);
  if (status >= 300 && status < 400) {
    const location = outcome.headers.location;
    return { content: [{ type: 'text', text: `Redirected (${status})${location ? ` to ${location}` : ''}` }] };
  }
  if (status >= 400 && status < 500) return clientError(outcome, options);
  throw new Error(RestExecutionMessages.upstreamFailed(options.operationLabel, status, quote(bodyText(outcome))));
}

function successResult(outcome: RestHttpOutcome, wrapsResult: boolean): CallToolResult {
  const { status, body, json } = outcome;
  if (status === 204 || body.length === 0) return { content: [{ type: 'text', text: `No content (${status})` }] };
  if (json !== undefined) {
    const structured = wrapsResult ? { result: json } : isRecord(json) ? json : undefined;
    return {
      content: [{ type: 'text', text: JSON.stringify(json) }],
      ...(structured && { structuredContent: structured }),
    };
  }
  const mediaType = (outcome.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType.startsWith('image/'))
    return { content: [{ type: 'image', data: body.toString('base64'), mimeType: mediaType }] };
  if (mediaType.startsWith('audio/'))
    return { content: [{ type: 'audio', data: body.toString('base64'), mimeType: mediaType }] };
  const text = decodeText(body);
  if (text === undefined)
    return { content: [{ type: 'text', text: `Binary response (${body.length} bytes, ${mediaType || 'no type'})` }] };
  // A Nest route returning a string answers text/html even where its document says JSON.
  return { content: [{ type: 'text', text }], ...(wrapsResult && { structuredContent: { result: text } }) };
}

function clientError(outcome: RestHttpOutcome, options: ToToolResultOptions): CallToolResult {
  const { status } = outcome;
  const body = outcome.json ?? bodyText(outcome);
  const detail = errorDetailOf(body, { args: options.arguments, textFields: status === 400 || status === 422 });
  const said = detail.messages.join('; ') || undefined;
  if (status === 401) throw new UnauthorizedException(said ?? 'Unauthorized');
  if (status === 403) throw new ForbiddenException(said ?? 'Forbidden');
  if (status === 429) {
    const seconds = retryAfterSecondsOf(outcome.headers['retry-after']);
    const retry = seconds === undefined ? '' : ` Retry in ${seconds} s.`;
    throw new RestThrottledException(`${said ?? `${options.operationLabel} is rate limited.`}${retry}`, seconds);
  }
  const heading = `${options.operationLabel} failed (${status} ${STATUS_CODES[status] ?? 'Error'})`;
  const lines = detail.fields.map(
    ({ field, messages }) => `- ${field}: ${messages.map((m) => withoutField(m, field)).join('; ')}`,
  );
  const text = lines.length
    ? `${heading}${said ? `: ${said}` : ''}\n${lines.join('\n')}`
    : `${heading}: ${said ?? 'no details given'}`;
  const meta: RestErrorMeta = { status, fields: detail.fields, messages: detail.messages };
  const result: CallToolResult = {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [REST_RESULT_META]: meta },
  };
  // The route refused the input (its ValidationPipe, a problem's `errors`): audited as invalid
  // arguments, as the host's own schema check would be, not as the tool's failure.
  return status === 400 || status === 422 ? markCallFailure(result, 'invalid') : result;
}

/** `priority must not be less than 1` under the field `priority` reads `must not be less than 1`. */
function withoutField(message: string, field: string): string {
  const last = field.split('.').pop() ?? field;
  for (const prefix of [field, last]) if (message.startsWith(`${prefix} `)) return message.slice(prefix.length + 1);
  return message;
}

function bodyText(outcome: RestHttpOutcome): string {
  return decodeText(outcome.body)?.trim() ?? `(${outcome.body.length} bytes of binary)`;
}

/** The body as UTF-8 text, or `undefined` when it is not valid UTF-8 (binary). */
function decodeText(body: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT - 1)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
