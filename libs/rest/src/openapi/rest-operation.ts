import type { JsonSchemaObject, McpToolAnnotations } from '#libs/core';

/** The HTTP methods an OpenAPI path item names. */
export type RestMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** Where a parameter travels in the HTTP request. */
export type RestParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter of an operation, its `$ref`s resolved, its schema in JSON Schema 2020-12. */
export interface RestParameter {
  readonly name: string;
  readonly in: RestParameterLocation;
  readonly required: boolean;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly schema: JsonSchemaObject;
  /** OpenAPI `style` / `explode` (query arrays and objects); defaults per location when absent. */
  readonly style?: string;
  readonly explode?: boolean;
}

/** The JSON request body of an operation, when it has one. */
export interface RestRequestBody {
  readonly required: boolean;
  readonly description?: string;
  /** The media type the body is sent as (`application/json` unless the operation only takes another). */
  readonly contentType: string;
  readonly schema: JsonSchemaObject;
}

/** One documented response: its status (`200`, `2XX`, `default`) and JSON schema when it has one. */
export interface RestResponse {
  readonly status: string;
  readonly description?: string;
  readonly contentType?: string;
  readonly schema?: JsonSchemaObject;
}

/**
 * One operation of an OpenAPI document (or of a Nest route described the same way), everything
 * the mapping to an MCP tool needs, with every `$ref` resolved and every schema converted to
 * JSON Schema 2020-12 (`$defs` for shared components).
 */
export interface RestOperation {
  readonly method: RestMethod;
  /** The path template as OpenAPI writes it, with the server's base path: `/api/tickets/{id}`. */
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly deprecated?: boolean;
  readonly parameters: readonly RestParameter[];
  readonly requestBody?: RestRequestBody;
  readonly responses: readonly RestResponse[];
  /** The operation object as the document has it (kept whole in the tool's `_meta`). */
  readonly source: Readonly<Record<string, unknown>>;
}

/** Where one argument of a REST-derived tool goes in the HTTP request. */
export interface RestArgumentTarget {
  /** `body` with `name` set: a property of the JSON body; `body` without: the whole body. */
  readonly in: RestParameterLocation | 'body';
  readonly name?: string;
}

/** The parts of an HTTP request made from a tool's arguments. */
export interface RestRequestParts {
  readonly method: Uppercase<RestMethod>;
  /** The path with its parameters filled in and encoded, and the query string: `/api/tickets/T-1?full=true`. */
  readonly url: string;
  /** Header parameters (lower-case names) and `content-type` when there is a body. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, when the operation has one and the arguments gave any of it. */
  readonly body?: unknown;
}

/** The MCP tool an operation becomes. */
export interface RestToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  /** Present when the documented 2xx response is JSON: an object schema (a non-object body is wrapped, see `wrapsResult`). */
  readonly outputSchema?: JsonSchemaObject;
  /** True when the 2xx body is not an object and `structuredContent` is `{ result: body }`. */
  readonly wrapsResult: boolean;
  readonly annotations: McpToolAnnotations;
  /** `{ "nest-mcp-host/rest": { method, path, operationId, tags, operation } }`. */
  readonly _meta: Record<string, unknown>;
  /** Each input property's place in the HTTP request. */
  readonly arguments: Readonly<Record<string, RestArgumentTarget>>;
  readonly operation: RestOperation;
}
