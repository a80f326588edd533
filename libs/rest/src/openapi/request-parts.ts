import type { RestParameter, RestRequestParts, RestToolDefinition } from './rest-operation';
import { RestRequestError } from './rest-request.error';

/**
 * The HTTP request a REST-derived tool's arguments make, per OpenAPI's serialization rules:
 *
 * - path: each `{name}` filled with its value, `encodeURIComponent`-ed (`simple` style: an array
 *   is `a,b`; `label` and `matrix` styles too); a missing path value throws `RestRequestError`;
 * - query: `form` style by default, exploded (`tag=a&tag=b`); `explode: false` gives a comma
 *   list (`tag=a,b`), `spaceDelimited` / `pipeDelimited` join with `%20` / `|`; an object is
 *   `k=v` pairs (`form`) or `name[k]=v` (`deepObject`); `null` and absent values are left out;
 * - headers: the value as a string (an array comma-joined), under the lower-cased name;
 * - body: the body properties given, as one object (or the `body` argument as the whole body),
 *   and `content-type`; a required object body is sent (`{}`) even when no property was given.
 *
 * Arguments the tool does not declare are ignored: validation against the input schema happens
 * before. `basePath` (e.g. `basePathOf(document)`) is put before the path.
 *
 * @throws RestRequestError when a path parameter has no value.
 * @example
 * ```ts
 * toRequestParts(findPetsByTags, { tags: ['a', 'b c'] }, '/api/v3');
 * // { method: 'GET', url: '/api/v3/pet/findByTags?tags=a&tags=b%20c', headers: {} }
 * ```
 */
export function toRequestParts(
  definition: RestToolDefinition,
  args: Readonly<Record<string, unknown>>,
  basePath = '',
): RestRequestParts {
  const plan = planOf(definition);
  const pathValues = new Map<string, unknown>();
  const query: string[] = [];
  const headers: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;
  let wholeBody: unknown;

  for (const { argument, name, parameter, whole } of plan.arguments) {
    const value = Object.prototype.hasOwnProperty.call(args, argument) ? args[argument] : undefined;
    if (parameter === undefined) {
      if (value === undefined) continue;
      if (whole) wholeBody = value;
      // Defined, not assigned: a property named `__proto__` would set the object's prototype.
      else Object.defineProperty((body ??= {}), name!, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (parameter.in === 'path') pathValues.set(parameter.name, value);
    else if (value === undefined || value === null) continue;
    else if (parameter.in === 'query') query.push(...queryPairs(parameter, value));
    else if (parameter.in === 'header')
      headers[parameter.name.toLowerCase()] = simple(value, parameter.explode === true);
  }

  let path = '';
  for (const part of plan.path) {
    if (typeof part === 'string') {
      path += part;
      continue;
    }
    const value = pathValues.get(part.name);
    if (value === undefined || value === null) throw missingPathValue(definition, part.name);
    path += pathSegment(part.name, value, part.parameter);
  }

  const { requestBody } = plan;
  // A required object body goes out even empty: the route expects one; a whole body is given or not.
  const sent = plan.takesWholeBody ? wholeBody : (body ?? (requestBody?.required ? {} : undefined));
  if (requestBody && sent !== undefined) headers['content-type'] = requestBody.contentType;
  return {
    method: plan.method,
    url: `${basePath ? basePath.replace(/\/+$/, '') : ''}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    headers,
    ...(requestBody && sent !== undefined ? { body: sent } : {}),
  };
}

/** What each call of a tool needs of its operation, worked out on its first call. */
interface RequestPlan {
  readonly method: RestRequestParts['method'];
  /** Each declared argument: a parameter's, or a body property (`name`), or the whole body. */
  readonly arguments: readonly {
    readonly argument: string;
    readonly parameter?: RestParameter;
    readonly name?: string;
    readonly whole: boolean;
  }[];
  /** The path template: literal text, and the parameters in it. */
  readonly path: readonly (string | { readonly name: string; readonly parameter?: RestParameter })[];
  readonly takesWholeBody: boolean;
  readonly requestBody: RestToolDefinition['operation']['requestBody'];
}

const plans = new WeakMap<RestToolDefinition, RequestPlan>();

function planOf(definition: RestToolDefinition): RequestPlan {
  let plan = plans.get(definition);
  if (plan) return plan;
  const operation = definition.operation;
  const targets = Object.entries(definition.arguments);
  const args: RequestPlan['arguments'][number][] = [];
  for (const [argument, target] of targets) {
    if (target.in === 'body') {
      args.push({ argument, name: target.name, whole: target.name === undefined });
      continue;
    }
    const parameter = operation.parameters.find((p) => p.in === target.in && p.name === target.name);
    // An argument without its parameter sends nothing.
    if (parameter) args.push({ argument, parameter, whole: false });
  }
  // `split` with a capture group: literal, name, literal, name, …, literal.
  const pieces = operation.path.split(/\{([^}]+)\}/);
  const path = pieces.map((piece, index) =>
    index % 2 === 0
      ? piece
      : { name: piece, parameter: operation.parameters.find((p) => p.in === 'path' && p.name === piece) },
  );
  plan = {
    method: operation.method.toUpperCase() as RestRequestParts['method'],
    arguments: args,
    path,
    takesWholeBody: targets.some(([, t]) => t.in === 'body' && t.name === undefined),
    requestBody: operation.requestBody,
  };
  plans.set(definition, plan);
  return plan;
}

function missingPathValue(definition: RestToolDefinition, name: string): RestRequestError {
  const operation = definition.operation;
  const argument = Object.entries(definition.arguments).find(([, t]) => t.in === 'path' && t.name === name)?.[0];
  const via = argument && argument !== name ? ` (argument "${argument}")` : '';
  return new RestRequestError(
    `Tool "${definition.name}" needs the path parameter "${name}"${via} for ${operation.method.toUpperCase()} ${operation.path}`,
  );
}

/** One scalar as text: objects nested in a list travel as JSON. */
function text(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** `simple` style (path default, headers): `a,b`; an object `k,v,k,v`, exploded `k=v,k=v`. Unencoded. */
function simple(value: unknown, explode: boolean, encode: (s: string) => string = (s) => s): string {
  if (Array.isArray(value)) return value.map((item) => encode(text(item))).join(',');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    return explode
      ? entries.map(([k, v]) => `${encode(k)}=${encode(text(v))}`).join(',')
      : entries.flatMap(([k, v]) => [encode(k), encode(text(v))]).join(',');
  }
  return encode(text(value));
}

/** A path parameter's value in the path: `simple` by default, or OpenAPI's `label` / `matrix`. */
function pathSegment(name: string, value: unknown, parameter: RestParameter | undefined): string {
  const explode = parameter?.explode === true;
  const enc = encodeURIComponent;
  switch (parameter?.style) {
    case 'label':
      return `.${explode && Array.isArray(value) ? value.map((v) => enc(text(v))).join('.') : simple(value, explode, enc)}`;
    case 'matrix':
      if (Array.isArray(value) && explode) return value.map((v) => `;${enc(name)}=${enc(text(v))}`).join('');
      return `;${enc(name)}=${simple(value, explode, enc)}`;
    default:
      return simple(value, explode, enc);
  }
}

/** The `name=value` pairs (encoded) a query parameter adds to the query string. */
function queryPairs(parameter: RestParameter, value: unknown): string[] {
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  const enc = encodeURIComponent;
  const name = enc(parameter.name);
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== undefined && item !== null).map((item) => enc(text(item)));
    if (items.length === 0) return [];
    if (explode) return items.map((item) => `${name}=${item}`);
    const separator = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${items.join(separator)}`];
  }
  if (typeof value === 'object' && value !== null) {
    if (style === 'deepObject') return deepObjectPairs(name, value as Record<string, unknown>);
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (explode) return entries.map(([k, v]) => `${enc(k)}=${enc(text(v))}`);
    return entries.length > 0 ? [`${name}=${entries.flatMap(([k, v]) => [enc(k), enc(text(v))]).join(',')}`] : [];
  }
  return [`${name}=${enc(text(value))}`];
}

/** `deepObject`: `filter[status]=open&filter[owner][id]=7` (brackets as the spec writes them). */
function deepObjectPairs(prefix: string, value: Record<string, unknown>): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    if (item === undefined || item === null) return [];
    const name = `${prefix}[${encodeURIComponent(key)}]`;
    if (Array.isArray(item)) return item.map((element) => `${name}=${encodeURIComponent(text(element))}`);
    if (typeof item === 'object') return deepObjectPairs(name, item as Record<string, unknown>);
    return [`${name}=${encodeURIComponent(text(item))}`];
  });
}
