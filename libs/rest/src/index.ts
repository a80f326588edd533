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
