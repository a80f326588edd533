import type { RestArgumentTarget } from '../openapi/rest-operation';

/** One field an HTTP error answer refused, named as the tool's argument when it can be, with the route's messages. */
export interface RestFieldError {
  /** The tool argument (a dotted path below it for nested properties: `customer.email`, `items.0.name`). */
  readonly field: string;
  readonly messages: readonly string[];
}

/** What an error body says: its general messages and its per-field ones. */
export interface RestErrorDetail {
  readonly messages: readonly string[];
  readonly fields: readonly RestFieldError[];
}

/** A property path as class-validator and ValidationPipe write it at the start of a message. */
const LEADING_PATH = /^([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)\s+\S/;

/**
 * Reads the field-level detail of an HTTP error body in the shapes routes commonly answer with:
 * - Nest's `ValidationPipe` (`{ statusCode, message: string[] | string, error }`): class-validator
 *   messages begin with the property path (`priority must not be less than 1`);
 * - a `ValidationPipe` whose `exceptionFactory` returns the `ValidationError`s
 *   (`{ property, constraints, children }`);
 * - RFC 9457 problem details: `errors: [{ detail, pointer }]` and `invalid-params: [{ name, reason }]`,
 *   with `detail` or `title` as the general message;
 * - `{ field | name | property | path, message | reason | detail }` items in `errors`.
 *
 * Field names are mapped back to the tool's arguments with `args` (a body property `name` may be
 * the argument `body_name`). A plain message is read for a leading property path only with
 * `textFields` (validation answers: 400, 422), and then only when the path names an argument
 * (any identifier-like word without `args`): "Ticket T-9 not found" names no field.
 */
export function errorDetailOf(
  body: unknown,
  options: { args?: Readonly<Record<string, RestArgumentTarget>>; textFields?: boolean } = {},
): RestErrorDetail {
  const { args, textFields = false } = options;
  const messages: string[] = [];
  const fields = new Map<string, string[]>();
  const addField = (path: string, message: string) => {
    const field = argumentPath(path, args, true);
    if (field === undefined) return void messages.push(message);
    fields.set(field, [...(fields.get(field) ?? []), message]);
  };
  const addText = (text: string) => {
    const path = textFields ? LEADING_PATH.exec(text)?.[1] : undefined;
    const field = path && argumentPath(path, args, false);
    if (field) fields.set(field, [...(fields.get(field) ?? []), text]);
    else messages.push(text);
  };
  const addItem = (item: unknown, prefix = '') => {
    if (typeof item === 'string') return addText(item);
    if (!isRecord(item)) return;
    const path = pathOf(item);
    const texts = textsOf(item);
    if (path !== undefined) {
      const full = prefix ? `${prefix}.${path}` : path;
      for (const text of texts) addField(full, text);
      if (Array.isArray(item.children)) for (const child of item.children) addItem(child, full);
    } else texts.forEach(addText);
  };

  if (typeof body === 'string') {
    if (body.trim()) messages.push(body.trim());
  } else if (isRecord(body)) {
    const message = body.message;
    if (Array.isArray(message)) message.forEach((item) => addItem(item));
    else if (typeof message === 'string') addText(message);
    for (const list of [body.errors, body['invalid-params'], body.invalidParams])
      if (Array.isArray(list)) list.forEach((item) => addItem(item));
    const general = firstString(body.detail, message === undefined ? body.title : undefined);
    if (general) messages.unshift(general);
    if (!messages.length && !fields.size) {
      const fallback = firstString(body.title, body.error);
      if (fallback) messages.push(fallback);
    }
  }
  return { messages, fields: [...fields].map(([field, list]) => ({ field, messages: list })) };
}

/** Where an error item says the problem is: a JSON pointer (`#/items/0/name`) or a name. */
function pathOf(item: Record<string, unknown>): string | undefined {
  if (typeof item.pointer === 'string') return pointerToPath(item.pointer);
  const path = item.path;
  if (Array.isArray(path) && path.length) return path.join('.');
  return firstString(item.field, item.name, item.property, item.param, typeof path === 'string' ? path : undefined);
}

function textsOf(item: Record<string, unknown>): string[] {
  if (isRecord(item.constraints)) return Object.values(item.constraints).filter((v) => typeof v === 'string');
  if (Array.isArray(item.messages)) return item.messages.filter((v) => typeof v === 'string');
  const text = firstString(item.message, item.reason, item.detail, item.title);
  return text ? [text] : [];
}

function pointerToPath(pointer: string): string {
  return pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/**
 * The tool argument a request property path belongs to, the rest of the path kept:
 * `name` → `body_name`, `customer.email` → `customer.email`, `priority` → `body.priority` when
 * the whole body is one argument (only for a path given as such, `inWholeBody`, not one guessed
 * from a message). Without `args` the path is taken as it is.
 */
function argumentPath(
  path: string,
  args: Readonly<Record<string, RestArgumentTarget>> | undefined,
  inWholeBody: boolean,
): string | undefined {
  if (!args) return path;
  const [head, ...rest] = path.split('.');
  const tail = rest.length ? `.${rest.join('.')}` : '';
  const entries = Object.entries(args);
  const byTarget =
    entries.find(([, target]) => target.in === 'body' && target.name === head) ??
    entries.find(([, target]) => target.in !== 'body' && target.name === head);
  if (byTarget) return byTarget[0] + tail;
  if (head in args) return path;
  if (!inWholeBody) return undefined;
  const wholeBody = entries.find(([, target]) => target.in === 'body' && target.name === undefined);
  return wholeBody ? `${wholeBody[0]}.${path}` : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string' && value.trim() !== '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
