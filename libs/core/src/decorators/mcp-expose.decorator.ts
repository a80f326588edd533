import { SetMetadata } from '@nestjs/common';
import { MCP_EXPOSE_METADATA } from '../mcp.constants';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface';

/**
 * What `@McpExpose` may say about the tool a route becomes; everything else comes from the
 * route's OpenAPI description (`@nestjs/swagger`) or, without it, from the route and its DTOs.
 */
export type McpExposeOptions = Partial<
  Pick<McpToolOptions, 'name' | 'title' | 'description' | 'annotations' | 'icons' | 'confirm' | 'timeoutMs' | '_meta'>
>;

/**
 * Exposes REST routes as MCP tools: on a controller, every route of it; on a route method, that
 * route (with `false`, a route of an exposed controller is left out). The call runs the route
 * through the application's own HTTP pipeline — its guards, interceptors, pipes and filters —
 * behind the host's admission (authorization, throttling, audit, confirmation). Put
 * `@RequireScopes` / `@Roles` on the route or controller so that lists show it only to callers
 * who may call it. Routes can also be selected without decorators, by the `rest.routes` option.
 *
 * @example
 * ```ts
 * @McpExpose()
 * @RequireScopes('tickets:read')
 * @Controller('tickets')
 * export class TicketsController {
 *   @Get(':ticketId')
 *   @ApiOperation({ operationId: 'getTicket', summary: 'One ticket by id' })
 *   get(@Param('ticketId') ticketId: string) { … }
 *
 *   @Delete(':ticketId')
 *   @RequireScopes('tickets:write')
 *   @McpExpose({ description: 'Deletes a ticket for good (asks the user first)', confirm: true })
 *   remove(@Param('ticketId') ticketId: string) { … }
 *
 *   @Post('import')
 *   @McpExpose(false) // not for agents
 *   import(@Body() file: ImportDto) { … }
 * }
 * ```
 */
export const McpExpose = (options: McpExposeOptions | false = {}): ClassDecorator & MethodDecorator =>
  SetMetadata(MCP_EXPOSE_METADATA, options);
