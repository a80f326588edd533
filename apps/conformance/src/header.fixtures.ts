import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

/**
 * A tool with a custom header parameter (SEP-2243): `x-mcp-header` marks `region` for clients to
 * mirror as `Mcp-Param-Region`, which the host checks against the argument. The raw JSON Schema
 * keeps the keyword on the wire.
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
}
