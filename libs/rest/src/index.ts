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
export { MCP_REST_REQUEST, isMcpRestRequest } from './execution/mcp-rest-request';
export { runRemote, type RemoteRequestOptions } from './execution/remote-request';
export type { RestRemoteCredentials } from './execution/remote-credentials';
export { RemoteRequestError, type RemoteRequestFailure } from './execution/remote-request.error';
export type { RestHttpOutcome } from './execution/rest-http-outcome';
export { toToolResult, REST_RESULT_META, type RestErrorMeta, type ToToolResultOptions } from './execution/http-outcome';
export type { RestFieldError } from './execution/error-fields';
export { RestThrottledException } from './execution/rest-throttled.exception';
