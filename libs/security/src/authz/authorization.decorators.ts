import { SetMetadata } from '@nestjs/common';
import { MCP_REQUIRED_SCOPES_METADATA, MCP_ROLES_METADATA } from '#libs/core';

/**
 * Only callers with all these scopes see and may call the tool, prompt or resource (on a
 * method) or everything of the provider (on a class). Others get it neither listed nor found.
 *
 * @example
 * ```ts
 * @RequireScopes('tickets:write')
 * @McpTool({ description: 'Closes a ticket', annotations: { destructiveHint: true } })
 * close(@McpArgs() dto: CloseTicketDto) { ... }
 * ```
 */
export const RequireScopes = (...scopes: string[]) => SetMetadata(MCP_REQUIRED_SCOPES_METADATA, scopes);

/**
 * Only callers with one of these roles see and may call it (method or class).
 *
 * @example
 * ```ts
 * @Roles('supervisor', 'admin')
 * @Injectable()
 * export class AdminTools { ... }
 * ```
 */
export const Roles = (...roles: string[]) => SetMetadata(MCP_ROLES_METADATA, roles);
