export type {
  RestMethod,
  RestParameterLocation,
  RestParameter,
  RestRequestBody,
  RestResponse,
  RestOperation,
  RestArgumentTarget,
  RestRequestParts,
  RestToolDefinition,
} from './openapi/rest-operation';
export { runInProcess, type RestHttpAdapter, type InProcessRequestOptions } from './execution/in-process-request';
export { MCP_REST_REQUEST, isMcpRestRequest } from '#libs/core';
export { runRemote, type RemoteRequestOptions } from './execution/remote-request';
export type { RestRemoteCredentials } from './execution/remote-credentials';
export { RemoteRequestError, type RemoteRequestFailure } from './execution/remote-request.error';
export type { RestHttpOutcome } from './execution/rest-http-outcome';
export { toToolResult, REST_RESULT_META, type RestErrorMeta, type ToToolResultOptions } from './execution/http-outcome';
export type { RestFieldError } from './execution/error-fields';
export { RestThrottledException } from './execution/rest-throttled.exception';
export type {
  OpenApiDocument,
  OpenApiPathItem,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiRequestBody,
  OpenApiResponse,
  OpenApiMediaType,
  OpenApiComponents,
  OpenApiReference,
  OpenApiSchema,
  OpenApiServer,
} from './openapi/openapi-document';
export { operationLabel, type RestDiagnostic } from './openapi/rest-diagnostic';
export { readOperations, type ReadOperationsOptions, type ReadOperationsResult } from './openapi/read-operations';
export { basePathOf, serverUrlOf } from './openapi/openapi-servers';
export {
  SchemaConverter,
  convertSchema,
  type ConvertedSchema,
  type SchemaDirection,
} from './openapi/schema-conversion';
export {
  nameTools,
  toolNameOf,
  sanitizeToolName,
  type ToolNamingOptions,
  type ToolNamingResult,
} from './openapi/tool-naming';
export {
  mapOperations,
  descriptionOf,
  REST_META_KEY,
  type ToolMappingOptions,
  type ToolMappingResult,
} from './openapi/tool-mapping';
export { toolInputOf, type ToolInput } from './openapi/tool-input-schema';
export { toolOutputOf, successResponseOf, type ToolOutput } from './openapi/tool-output-schema';
export { annotationsOf, ANNOTATIONS_EXTENSION } from './openapi/tool-annotations';
export { toRequestParts } from './openapi/request-parts';
export { RestRequestError } from './openapi/rest-request.error';
export {
  selectOperations,
  pathGlob,
  type RouteSelectionRules,
  type RouteSelectionRule,
  type RouteSelectionResult,
} from './openapi/route-selection';
export {
  MCP_REST_OPTIONS,
  InjectRestOptions,
  REST_OPTION_KEYS,
  resolveRestOptions,
  type RestOptions,
  type McpRestOptions,
  type McpRestRouteRules,
  type McpRestConfirmOptions,
  type McpRestConfirmPolicy,
} from './options/rest.options';
export { resolveRestApis, type McpRestApiOptions, type RestApiOptions } from './options/rest-api.options';
export { loadOpenApiDocument, OpenApiSourceError, type LoadedOpenApiDocument } from './remote/openapi-source';
export { REST_PROVIDERS } from './rest.providers';
export { REST_API_PROVIDERS } from './remote/rest-api.providers';
export { RestApiLoader } from './remote/rest-api.loader';
