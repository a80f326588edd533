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
  const operation = definition.operation;
  const pathValues = new Map<string, unknown>();
  const query: string[] = [];
  const headers: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;
  let wholeBody: unknown;

  for (const [argument, target] of Object.entries(definition.arguments)) {
    const value = Object.prototype.hasOwnProperty.call(args, argument) ? args[argument] : undefined;
    if (target.in === 'body') {
      if (value === undefined) continue;
      if (target.name === undefined) wholeBody = value;
      // Defined, not assigned: a property named `__proto__` would set the object's prototype.
      else
        Object.defineProperty((body ??= {}), target.name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      continue;
    }
    const parameter = operation.parameters.find((p) => p.in === target.in && p.name === target.name);
    if (!parameter) continue;
    if (parameter.in === 'path') pathValues.set(parameter.name, value);
    else if (value === undefined || value === null) continue;
    else if (parameter.in === 'query') query.push(...queryPairs(parameter, value));
    else if (parameter.in === 'header')
      headers[parameter.name.toLowerCase()] = simple(value, parameter.explode === true);
  }

  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = pathValues.get(name);
    if (value === undefined || value === null) {
      const argument = Object.entries(definition.arguments).find(([, t]) => t.in === 'path' && t.name === name)?.[0];
      const via = argument && argument !== name ? ` (argument "${argument}")` : '';
      throw new RestRequestError(
        `Tool "${definition.name}" needs the path parameter "${name}"${via} for ${operation.method.toUpperCase()} ${operation.path}`,
      );
    }
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    return pathSegment(name, value, parameter);
  });

  const requestBody = operation.requestBody;
  const takesWholeBody = Object.values(definition.arguments).some((t) => t.in === 'body' && t.name === undefined);
  // A required object body goes out even empty: the route expects one; a whole body is given or not.
  const sent = takesWholeBody ? wholeBody : (body ?? (requestBody?.required ? {} : undefined));
  if (requestBody && sent !== undefined) headers['content-type'] = requestBody.contentType;
  return {
    method: operation.method.toUpperCase() as RestRequestParts['method'],
    url: `${basePath.replace(/\/+$/, '')}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    headers,
    ...(requestBody && sent !== undefined ? { body: sent } : {}),
  };
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
