import { Injectable, UseInterceptors } from '@nestjs/common';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { McpArgs, McpHeader, McpTool } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

/** The arguments of `test_header_params`: `region` travels in `Mcp-Param-Region`, `shard` in `Mcp-Param-Shard`. */
class HeaderParamsDto {
  @McpHeader('Region')
  @IsString()
  region!: string;

  @McpHeader('Shard')
  @IsOptional()
  @IsInt()
  shard?: number;
}

/**
 * Tools with custom header parameters (SEP-2243): `x-mcp-header` marks arguments for clients to
 * mirror as `Mcp-Param-{Name}` headers, which the host checks against the arguments. The suite
 * calls the first such tool of `tools/list` (`test_custom_headers`, its raw JSON Schema keeping
 * the keyword on the wire); `test_header_params` declares its headers on a DTO with
 * `@McpHeader()`, an integer among them (the e2e tests call it).
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class HeaderFixtures {
  @McpTool({
    name: 'test_custom_headers',
    description: 'Echoes a region that clients also send as the Mcp-Param-Region header',
    input: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Region to echo', 'x-mcp-header': 'Region' },
        query: { type: 'string', description: 'Not mirrored in a header' },
      },
      required: ['region'],
    },
  })
  customHeaders(@McpArgs() { region, query }: { region: string; query?: string }) {
    return `region=${JSON.stringify(region)}${query === undefined ? '' : `, query=${JSON.stringify(query)}`}`;
  }

  @McpTool({ name: 'test_header_params', description: 'Echoes the region (and shard) its Mcp-Param-* headers carry' })
  headerParams(@McpArgs() { region, shard }: HeaderParamsDto) {
    return shard === undefined ? `region ${region}` : `region ${region}, shard ${shard}`;
  }
}
