import {
  applyDecorators,
  Controller,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiSecurity,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { McpGovernanceGuard, McpGovernanceInterceptor } from 'nest-mcp-host';
import { DeskApiGuard } from './desk-api.guard';
import { DeskErrorsFilter } from './desk-errors.filter';
import { deskValidationPipe } from './desk-validation.pipe';
import { HttpErrorResponse } from './responses/http-error.response';

/** The name of the API-key security scheme in the OpenAPI document (`X-API-Key`). */
export const API_KEY_SCHEME = 'api-key';
/** The name of the bearer security scheme (an API key or an OAuth access token). */
export const BEARER_SCHEME = 'bearer';

/** Marks the controllers of the desk's REST API (read-only mode refuses their writes). */
export const DESK_API_METADATA = 'support-desk:rest-api';

const validation = deskValidationPipe();

/**
 * A controller of the desk's REST API at `api/<resource>`: validated input, the desk's
 * authentication and scopes (`DeskApiGuard`), the desk's governance — the same policies and
 * guardrails as its MCP tools (src/governance.config.ts), on the request and on the response
 * (`McpGovernanceGuard`, after the authentication, and `McpGovernanceInterceptor`) — its domain
 * errors as HTTP answers (`DeskErrorsFilter`), and the OpenAPI tag and security schemes.
 */
export function DeskApiController(resource: string): ClassDecorator {
  return applyDecorators(
    Controller(`api/${resource}`),
    SetMetadata(DESK_API_METADATA, true),
    ApiTags(resource),
    ApiSecurity(API_KEY_SCHEME),
    ApiBearerAuth(BEARER_SCHEME),
    UseGuards(DeskApiGuard, McpGovernanceGuard),
    UseInterceptors(McpGovernanceInterceptor),
    UseFilters(DeskErrorsFilter),
    UsePipes(validation),
    ApiBadRequestResponse({
      description: 'Input that fails validation, one message per field.',
      type: HttpErrorResponse,
    }),
    ApiUnauthorizedResponse({ description: 'No API key or token, or one that is not valid.', type: HttpErrorResponse }),
    ApiForbiddenResponse({
      description: 'The key or token lacks a scope the route needs, or a policy refuses (named in `policy`).',
      type: HttpErrorResponse,
    }),
    ApiUnprocessableEntityResponse({
      description:
        'A guardrail refuses what the request carries (a secret): `findings` says what and where, never the value.',
      type: HttpErrorResponse,
    }),
    ApiTooManyRequestsResponse({ description: 'Too many requests, or too many bad keys.', type: HttpErrorResponse }),
  );
}
