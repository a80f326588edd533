/**
 * The parts of an OpenAPI 3.0 / 3.1 document the REST bridge reads, typed loosely: a document
 * comes from a file, a URL or `@nestjs/swagger`, so every field is optional and checked where it
 * is used. Fields the bridge does not read are left out (they stay in the objects all the same).
 */

/** `{ $ref: '#/components/schemas/Pet' }`: a reference in place of an object. */
export interface OpenApiReference {
  readonly $ref: string;
  readonly summary?: string;
  readonly description?: string;
}

/** A schema object (3.0: an extended subset of JSON Schema draft 4/5; 3.1: JSON Schema 2020-12). */
export type OpenApiSchema = Readonly<Record<string, unknown>>;

/** A media type entry of `content`: `{ 'application/json': { schema } }`. */
export interface OpenApiMediaType {
  readonly schema?: OpenApiSchema | OpenApiReference;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, unknown>>;
}

/** Where a parameter goes and how it is serialized. */
export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly schema?: OpenApiSchema | OpenApiReference;
  /** The alternative to `schema`: one media type whose schema describes the value. */
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
  readonly style?: string;
  readonly explode?: boolean;
}

/** An operation's request body. */
export interface OpenApiRequestBody {
  readonly description?: string;
  readonly required?: boolean;
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
}

/** One response of an operation. */
export interface OpenApiResponse {
  readonly description?: string;
  readonly headers?: Readonly<Record<string, unknown>>;
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
}

/** One operation (a method of a path item). Extensions (`x-…`) are read where the bridge knows them. */
export interface OpenApiOperation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly deprecated?: boolean;
  readonly parameters?: readonly (OpenApiParameter | OpenApiReference)[];
  readonly requestBody?: OpenApiRequestBody | OpenApiReference;
  readonly responses?: Readonly<Record<string, OpenApiResponse | OpenApiReference>>;
  readonly [extension: `x-${string}`]: unknown;
}

/** The operations of one path, and the parameters they share. */
export interface OpenApiPathItem {
  readonly $ref?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: readonly (OpenApiParameter | OpenApiReference)[];
  readonly get?: OpenApiOperation;
  readonly put?: OpenApiOperation;
  readonly post?: OpenApiOperation;
  readonly delete?: OpenApiOperation;
  readonly options?: OpenApiOperation;
  readonly head?: OpenApiOperation;
  readonly patch?: OpenApiOperation;
  readonly trace?: OpenApiOperation;
}

/** The reusable objects local `$ref`s point into. */
export interface OpenApiComponents {
  readonly schemas?: Readonly<Record<string, OpenApiSchema | OpenApiReference>>;
  readonly parameters?: Readonly<Record<string, OpenApiParameter | OpenApiReference>>;
  readonly requestBodies?: Readonly<Record<string, OpenApiRequestBody | OpenApiReference>>;
  readonly responses?: Readonly<Record<string, OpenApiResponse | OpenApiReference>>;
  readonly pathItems?: Readonly<Record<string, OpenApiPathItem | OpenApiReference>>;
}

/** A server the API is served from; `{name}` in the URL takes `variables[name].default`. */
export interface OpenApiServer {
  readonly url: string;
  readonly description?: string;
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly enum?: readonly string[] }>>;
}

/** An OpenAPI 3.0 / 3.1 document. `swagger` is only read to refuse a Swagger 2.0 document by name. */
export interface OpenApiDocument {
  readonly openapi?: string;
  readonly swagger?: string;
  readonly info?: { readonly title?: string; readonly version?: string };
  readonly servers?: readonly OpenApiServer[];
  readonly paths?: Readonly<Record<string, OpenApiPathItem>>;
  readonly components?: OpenApiComponents;
}

/** True when `value` is a `{ $ref }` object. */
export function isReference(value: unknown): value is OpenApiReference {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}
