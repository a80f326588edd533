/**
 * A REST operation's tool takes ONE flat object of arguments. What goes in it, and the
 * convention when two of its sources use the same name:
 *
 * - Path, query and header parameters the operation documents, each under its own name
 *   (`petId`, `status`, `api_key`), with its schema, description, default, enum and format.
 *   Never a cookie parameter, nor the headers the host or HTTP own: `Authorization`, `Cookie`,
 *   `Content-Type`, `Accept`, `Content-Length`, `Host` and the hop-by-hop ones (`Connection`,
 *   `Keep-Alive`, `Proxy-Authenticate`, `Proxy-Authorization`, `TE`, `Trailer`,
 *   `Transfer-Encoding`, `Upgrade`), nor those that name the client's address (`Forwarded`,
 *   `X-Forwarded-For`, `X-Real-IP`: a caller must not choose the address an app behind trusted
 *   proxies keys its limits on): those are left out with a `warning`.
 * - A JSON body whose schema is an object (after its `$ref`, or an `allOf` of objects): each of
 *   its top-level properties, under its own name. Any other JSON body (array, string, a map
 *   without `properties`) is one property named `body`.
 * - Clashes: body properties keep their names. A parameter whose name is also a body property
 *   (or `body`), or the name of a parameter in another location, is prefixed with its location
 *   and `_`: `path_id`, `query_id`, `header_x_trace` (a header's name lower-cased; any character
 *   outside `A-Z a-z 0-9 _` becomes `_`). Should even the prefixed name be taken, the operation
 *   is reported as an `error` and gets no tool.
 * - Required: the required parameters (every path parameter), and, when the body is required,
 *   the body's required properties (or `body`).
 * - A body that is not JSON (`application/octet-stream`, `multipart/form-data`, `text/plain`…):
 *   the operation gets no tool, and a `warning` names it. The model cannot send a file or a
 *   form through a JSON tool call, and sending the call without its body would do something
 *   other than what the operation documents.
 */
import type { JsonSchemaObject } from '#libs/core';
import { isJsonMediaType } from './media-type';
import { operationLabel, type RestDiagnostic } from './rest-diagnostic';
import type { RestArgumentTarget, RestOperation, RestParameter } from './rest-operation';
import { inlineRootRef, pruneDefs, splitDefs } from './schema-defs';

/** The input side of an operation's tool, or `undefined` schema when the operation gets no tool. */
export interface ToolInput {
  readonly schema?: JsonSchemaObject;
  readonly arguments: Record<string, RestArgumentTarget>;
  readonly diagnostics: RestDiagnostic[];
}

/**
 * Header parameters a tool never sets: credentials, what the bridge sets itself, hop-by-hop
 * headers, and the client's address as proxies write it.
 */
const FORBIDDEN_HEADERS = new Set([
  'authorization',
  'cookie',
  'content-type',
  'accept',
  'content-length',
  'host',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'forwarded',
  'x-forwarded-for',
  'x-real-ip',
]);

/** The top-level properties of an object body, or `undefined` when the body is not such an object. */
interface ObjectShape {
  readonly properties: Record<string, unknown>;
  readonly required: readonly string[];
}

/**
 * The flat input schema of an operation's tool and where each argument goes (see the convention
 * at the top of this file).
 *
 * @example
 * ```ts
 * toolInputOf(deletePet).schema;
 * // { type: 'object', properties: { api_key: { type: 'string' }, petId: { type: 'integer', format: 'int64', … } }, required: ['petId'] }
 * ```
 */
export function toolInputOf(operation: RestOperation): ToolInput {
  const where = `OpenAPI operation ${operationLabel(operation)}`;
  const diagnostics: RestDiagnostic[] = [];
  const body = operation.requestBody;
  if (body && !isJsonMediaType(body.contentType)) {
    diagnostics.push({
      severity: 'warning',
      where,
      problem: `its request body is ${body.contentType}, not JSON; the operation gets no tool`,
      fix: 'leave it out of the selection, give it an application/json body, or write an @McpTool for it',
    });
    return { arguments: {}, diagnostics };
  }
  const parameters = operation.parameters.filter((parameter) => {
    const forbidden =
      parameter.in === 'cookie' || (parameter.in === 'header' && FORBIDDEN_HEADERS.has(parameter.name.toLowerCase()));
    if (forbidden) {
      diagnostics.push({
        severity: 'warning',
        where,
        problem: `its ${parameter.in} parameter \`${parameter.name}\` is not one a tool may set; it is left out of the tool's arguments`,
        fix: 'nothing to do if the host supplies it (credentials, cookies); otherwise expose the operation as an @McpTool',
      });
      return false;
    }
    return true;
  });

  // Without a prototype: a property or argument named `__proto__` is one like any other.
  const properties: Record<string, unknown> = Object.create(null);
  const defs: Record<string, unknown> = {};
  const required: string[] = [];
  const targets: Record<string, RestArgumentTarget> = Object.create(null);
  const shape = body ? objectShape(body.schema) : undefined;
  if (body) Object.assign(defs, splitDefs(body.schema).defs);
  if (body && shape) {
    for (const [name, schema] of Object.entries(shape.properties)) {
      properties[name] = schema;
      targets[name] = { in: 'body', name };
    }
    if (body.required) required.push(...shape.required.filter((name) => name in shape.properties));
  } else if (body) {
    const { schema } = splitDefs(body.schema);
    properties.body =
      body.description && schema.description === undefined ? { ...schema, description: body.description } : schema;
    targets.body = { in: 'body' };
    if (body.required) required.push('body');
  }

  const bodyNames = new Set(Object.keys(properties));
  for (const parameter of parameters) {
    const clashes =
      bodyNames.has(parameter.name) || parameters.some((other) => other !== parameter && other.name === parameter.name);
    const name = clashes ? prefixed(parameter) : parameter.name;
    if (name in properties) {
      diagnostics.push({
        severity: 'error',
        where,
        problem: `its ${parameter.in} parameter \`${parameter.name}\` would be the argument \`${name}\`, which is taken; the operation gets no tool`,
        fix: `rename the parameter or the body property \`${name}\``,
      });
      return { arguments: {}, diagnostics };
    }
    const { schema, defs: own } = splitDefs(parameter.schema);
    Object.assign(defs, own);
    properties[name] = propertyOf(parameter, schema);
    targets[name] = { in: parameter.in, name: parameter.name };
    if (parameter.required) required.push(name);
  }

  const schema: JsonSchemaObject = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
  return { schema: pruneDefs(schema), arguments: targets, diagnostics };
}

/** `path_id`, `query_id`, `header_x_trace`. */
function prefixed(parameter: RestParameter): string {
  const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
  return `${parameter.in}_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** A parameter's schema with the parameter's own description and deprecation on it. */
function propertyOf(parameter: RestParameter, schema: JsonSchemaObject): JsonSchemaObject {
  return {
    ...schema,
    ...(parameter.description && schema.description === undefined ? { description: parameter.description } : {}),
    ...(parameter.deprecated ? { deprecated: true } : {}),
  };
}

/** The top-level properties of an object body schema (through a root `$ref` and `allOf`), if it is one. */
function objectShape(schema: JsonSchemaObject): ObjectShape | undefined {
  const { defs } = splitDefs(schema);
  const root = inlineRootRef(schema);
  const isObject = root.type === 'object' || (root.type === undefined && isRecord(root.properties));
  const composed = ['anyOf', 'oneOf', 'not', 'if'].some((keyword) => keyword in root);
  if (composed) return undefined;
  const properties: Record<string, unknown> = Object.create(null);
  const required: string[] = [];
  if (Array.isArray(root.allOf)) {
    for (const member of root.allOf) {
      const shape = isRecord(member) ? objectShape({ ...member, $defs: defs }) : undefined;
      if (!shape) return undefined;
      Object.assign(properties, shape.properties);
      required.push(...shape.required);
    }
  } else if (!isObject || !isRecord(root.properties)) {
    return undefined;
  }
  Object.assign(properties, isRecord(root.properties) ? root.properties : {});
  if (Array.isArray(root.required)) required.push(...(root.required as string[]));
  return { properties, required: [...new Set(required)] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
