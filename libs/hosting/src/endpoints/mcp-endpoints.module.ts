import { Module } from '@nestjs/common';
import { McpEndpoints } from './mcp-endpoints';

/**
 * Holds `McpEndpoints`. A static module: however many `McpModule.forRoot()` imports an
 * application has, Nest creates it once, so every endpoint registers with the same registry.
 */
@Module({ providers: [McpEndpoints], exports: [McpEndpoints] })
export class McpEndpointsModule {}
