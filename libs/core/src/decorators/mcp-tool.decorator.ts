import { SetMetadata } from '@nestjs/common';
import { MCP_TOOL_METADATA } from '../mcp.constants';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface';

/**
 * Publishes a provider method as an MCP tool. The host finds it at start-up; the method runs
 * through Nest's guards, interceptors, pipes and filters on every call, on every transport.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class MathTools {
 *   @McpTool({ description: 'Adds two numbers', annotations: { readOnlyHint: true } })
 *   add(@McpArgs() { a, b }: AddDto) {
 *     return String(a + b);
 *   }
 * }
 * ```
 */
export const McpTool = (options: McpToolOptions): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
