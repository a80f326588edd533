import type { JsonSchemaObject } from '#libs/core';
import { resolveRef } from './local-ref';
import { chooseMediaType, essenceOf } from './media-type';
import type {
  OpenApiDocument,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiPathItem,
  OpenApiReference,
  OpenApiRequestBody,
  OpenApiResponse,
} from './openapi-document';
import { operationLabel, type RestDiagnostic } from './rest-diagnostic';
import type {
  RestMethod,
  RestOperation,
  RestParameter,
  RestParameterLocation,
  RestRequestBody,
  RestResponse,
} from './rest-operation';
import { SchemaConverter, type SchemaDirection } from './schema-conversion';

/** Options of `readOperations`. */
export interface ReadOperationsOptions {
  /**
   * Prefixed to every path (`/api/v3` + `/pet` → `/api/v3/pet`), e.g. `basePathOf(document)` when
   * requests go to the host that serves the paths below the server's base path.
   * @default '' (paths as the document writes them)
   */
  readonly basePath?: string;
}

/** What `readOperations` found: the operations, and every problem met on the way. */
export interface ReadOperationsResult {
  readonly operations: RestOperation[];
  readonly diagnostics: RestDiagnostic[];
}

/** The methods of a path item, in the order OpenAPI lists them. */
const METHODS: readonly RestMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const LOCATIONS: readonly RestParameterLocation[] = ['path', 'query', 'header', 'cookie'];
const DOCUMENT = 'OpenAPI document';

/**
 * Reads the operations of an OpenAPI 3.0.x or 3.1.x document, in document order, each ready for
 * the mapping to a tool: path-item parameters merged with the operation's own (the operation's
 * win, matched by name and location), local `$ref`s resolved, schemas converted to JSON Schema
 * 2020-12 (`SchemaConverter`), the JSON media type of the request body and of each response
 * chosen (`application/json`, then `+json`; a body with no JSON type keeps its own, for the
 * mapping to decide). `source` is the operation object as written.
 *
 * Never throws on a bad document: a Swagger 2.0 or unknown version gives no operations and one
 * diagnostic; an external or dangling `$ref` is reported with the operation it is in (the schema
 * it stood for becomes `{}`, a parameter it stood for is left out).
 *
 * @example
 * ```ts
 * const { operations, diagnostics } = readOperations(parse(readFileSync('openapi.yaml', 'utf8')), {
 *   basePath: '/api/v3',
 * });
 * // operations[0]: { method: 'put', path: '/api/v3/pet', operationId: 'updatePet', parameters: [], requestBody: {…}, … }
 * ```
 */
export function readOperations(document: unknown, options: ReadOperationsOptions = {}): ReadOperationsResult {
  const diagnostics: RestDiagnostic[] = [];
  const refused = refusal(document);
  if (refused) return { operations: [], diagnostics: [refused] };
  const doc = document as OpenApiDocument;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const converter = new SchemaConverter(doc);
  const operations: RestOperation[] = [];
  for (const [path, rawItem] of Object.entries(isRecord(doc.paths) ? doc.paths : {})) {
    const item = resolveRef<OpenApiPathItem>(doc, rawItem);
    if (item.problem !== undefined || !isRecord(item.value)) {
      diagnostics.push(error(`OpenAPI path ${path}`, item.problem ?? 'is not a path item object', REF_FIX));
      continue;
    }
    // A path item's own fields win over those of the item its `$ref` points at.
    const pathItem = { ...item.value, ...(rawItem as object), $ref: undefined } as OpenApiPathItem;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!isRecord(operation)) continue;
      const read = new OperationReader(doc, converter, method, path, operation, diagnostics);
      operations.push(read.operation(pathItem, basePath + path));
    }
  }
  return { operations, diagnostics };
}

/** Reads one operation, reporting its problems under its own name. */
class OperationReader {
  private readonly where: string;

  constructor(
    private readonly document: OpenApiDocument,
    private readonly converter: SchemaConverter,
    private readonly method: RestMethod,
    private readonly path: string,
    private readonly source: OpenApiOperation,
    private readonly diagnostics: RestDiagnostic[],
  ) {
    const operationId = typeof source.operationId === 'string' ? source.operationId : undefined;
    this.where = `OpenAPI operation ${operationLabel({ method, path, operationId })}`;
  }

  operation(pathItem: OpenApiPathItem, fullPath: string): RestOperation {
    const op = this.source;
    const parameters = this.parameters(pathItem);
    this.checkPathTemplate(parameters);
    const requestBody = op.requestBody === undefined ? undefined : this.requestBody(op.requestBody);
    return {
      method: this.method,
      path: fullPath,
      ...(typeof op.operationId === 'string' ? { operationId: op.operationId } : {}),
      ...(typeof op.summary === 'string' ? { summary: op.summary } : {}),
      ...(typeof op.description === 'string' ? { description: op.description } : {}),
      tags: Array.isArray(op.tags) ? op.tags.filter((tag) => typeof tag === 'string') : [],
      ...(op.deprecated === true ? { deprecated: true } : {}),
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: this.responses(),
      source: op as Readonly<Record<string, unknown>>,
    };
  }

  /** Path-item parameters, then the operation's: one per name and location, the operation's winning. */
  private parameters(pathItem: OpenApiPathItem): RestParameter[] {
    const byKey = new Map<string, RestParameter>();
    for (const list of [pathItem.parameters, this.source.parameters]) {
      for (const raw of Array.isArray(list) ? list : []) {
        const parameter = this.parameter(raw);
        // Header names are case-insensitive: `X-Trace` and `x-trace` are one parameter.
        if (parameter) byKey.set(`${parameter.in}:${parameterKey(parameter)}`, parameter);
      }
    }
    return [...byKey.values()];
  }

  private parameter(raw: OpenApiParameter | OpenApiReference): RestParameter | undefined {
    const resolved = resolveRef<OpenApiParameter>(this.document, raw);
    if (resolved.problem !== undefined) {
      this.diagnostics.push(error(this.where, `a parameter's ${resolved.problem}; the parameter is left out`, REF_FIX));
      return undefined;
    }
    const p = resolved.value;
    if (!isRecord(p) || typeof p.name !== 'string' || p.name === '' || !LOCATIONS.includes(p.in)) {
      this.diagnostics.push(
        error(
          this.where,
          `a parameter has no \`name\` or no \`in\` of ${LOCATIONS.join(', ')}; it is left out`,
          'give every parameter a `name` and an `in` (path, query, header or cookie)',
        ),
      );
      return undefined;
    }
    const media = p.schema === undefined ? chooseMediaType(p.content) : undefined;
    const schema = this.schema(p.schema ?? media?.media.schema ?? {}, 'input', `parameter \`${p.name}\``);
    return {
      name: p.name,
      in: p.in,
      // OpenAPI requires `required: true` on path parameters; a path cannot be filled without them.
      required: p.in === 'path' || p.required === true,
      ...(typeof p.description === 'string' && p.description !== '' ? { description: p.description } : {}),
      ...(p.deprecated === true ? { deprecated: true } : {}),
      schema,
      ...(typeof p.style === 'string' ? { style: p.style } : {}),
      ...(typeof p.explode === 'boolean' ? { explode: p.explode } : {}),
    };
  }

  /** Every `{name}` of the path template needs a path parameter, or no request can be made. */
  private checkPathTemplate(parameters: readonly RestParameter[]): void {
    const declared = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
    for (const [, name] of this.path.matchAll(/\{([^}]+)\}/g)) {
      if (!declared.has(name)) {
        this.diagnostics.push(
          error(
            this.where,
            `the path has \`{${name}}\` but the operation declares no path parameter \`${name}\``,
            `add \`{ name: '${name}', in: 'path', required: true, schema: { type: 'string' } }\` to its parameters`,
          ),
        );
      }
    }
  }

  private requestBody(raw: OpenApiRequestBody | OpenApiReference): RestRequestBody | undefined {
    const resolved = resolveRef<OpenApiRequestBody>(this.document, raw);
    if (resolved.problem !== undefined || !isRecord(resolved.value)) {
      const problem = resolved.problem ?? 'is not a request body object';
      this.diagnostics.push(error(this.where, `the request body's ${problem}; the body is left out`, REF_FIX));
      return undefined;
    }
    const body = resolved.value;
    const chosen = chooseMediaType(body.content);
    if (!chosen) return undefined;
    return {
      required: body.required === true,
      ...(typeof body.description === 'string' && body.description !== '' ? { description: body.description } : {}),
      // `*/*` takes anything: the bridge sends JSON.
      contentType: essenceOf(chosen.type) === '*/*' ? 'application/json' : chosen.type,
      schema: this.schema(chosen.media.schema ?? {}, 'input', 'the request body'),
    };
  }

  private responses(): RestResponse[] {
    const responses: RestResponse[] = [];
    for (const [status, raw] of Object.entries(isRecord(this.source.responses) ? this.source.responses : {})) {
      const resolved = resolveRef<OpenApiResponse>(this.document, raw);
      if (resolved.problem !== undefined || !isRecord(resolved.value)) {
        const problem = resolved.problem ?? 'is not a response object';
        this.diagnostics.push(error(this.where, `response ${status}'s ${problem}`, REF_FIX));
        continue;
      }
      const response = resolved.value;
      const chosen = chooseMediaType(response.content);
      const description = typeof response.description === 'string' ? response.description : undefined;
      responses.push({
        status,
        ...(description ? { description } : {}),
        ...(chosen ? { contentType: chosen.type } : {}),
        ...(chosen?.json && chosen.media.schema !== undefined
          ? { schema: this.schema(chosen.media.schema, 'output', `response ${status}`) }
          : {}),
      });
    }
    return responses;
  }

  private schema(raw: unknown, direction: SchemaDirection, what: string): JsonSchemaObject {
    const { schema, problems } = this.converter.convert(raw, direction);
    for (const problem of problems) {
      this.diagnostics.push(
        error(this.where, `${what}: ${problem}; that part of the schema accepts anything`, REF_FIX),
      );
    }
    return schema;
  }
}

/** The diagnostic for a document the bridge does not read at all, or `undefined`. */
function refusal(document: unknown): RestDiagnostic | undefined {
  if (!isRecord(document)) {
    return error(DOCUMENT, 'is not an object', 'pass the parsed document (JSON.parse or YAML parse of the file)');
  }
  if (typeof document.swagger === 'string') {
    return error(
      DOCUMENT,
      `is Swagger ${document.swagger} (\`swagger: "${document.swagger}"\`); only OpenAPI 3.0.x and 3.1.x documents are read`,
      'convert it to OpenAPI 3 (e.g. `npx swagger2openapi swagger.json -o openapi.json`, or the Swagger Editor\'s "Convert to OpenAPI 3"), or serve the 3.x document your framework can produce',
    );
  }
  const version = document.openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version)) {
    const found = typeof version === 'string' ? `is OpenAPI ${version}` : 'has no `openapi` version field';
    return error(
      DOCUMENT,
      `${found}; only OpenAPI 3.0.x and 3.1.x documents are read`,
      'pass an OpenAPI 3.0 or 3.1 document (its first line reads `openapi: 3.0.x` or `openapi: 3.1.x`)',
    );
  }
  return undefined;
}

const REF_FIX =
  'make every `$ref` point inside the document (`#/components/…`) at something that exists; bundle external files first (e.g. `npx @redocly/cli bundle`)';

function error(where: string, problem: string, fix: string): RestDiagnostic {
  return { severity: 'error', where, problem, fix };
}

function parameterKey(parameter: RestParameter): string {
  return parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
