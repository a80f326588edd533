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

  @IsOptional()
  @IsString()
  query?: string;
}

/**
 * A tool whose parameters are mirrored into HTTP headers (`x-mcp-header`): the suite's
 * http-custom-header-server-validation scenario sends `Mcp-Param-*` headers, valid and not, to
 * the first such tool of `tools/list` and expects the host to check them against the arguments.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class HeaderFixtures {
  @McpTool({ name: 'test_header_params', description: 'Echoes the region (and shard) its Mcp-Param-* headers carry' })
  headerParams(@McpArgs() { region, shard }: HeaderParamsDto) {
    return shard === undefined ? `region ${region}` : `region ${region}, shard ${shard}`;
  }
}
