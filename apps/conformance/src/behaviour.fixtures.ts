import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpContext, McpTool, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

/** Tools the suite calls to check notifications during a call, SSE polling and schema preservation. */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class BehaviourFixtures {
  @McpTool({ name: 'test_tool_with_logging', description: 'Logs three messages while it runs' })
  async withLogging(@McpContext() ctx: McpCallContext) {
    ctx.log.info('Tool execution started');
    await delay(50);
    ctx.log.info('Tool processing data');
    await delay(50);
    ctx.log.info('Tool execution completed');
    return 'Logging tool finished';
  }

  @McpTool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100' })
  async withProgress(@McpContext() ctx: McpCallContext) {
    ctx.reportProgress(0, 100);
    await delay(50);
    ctx.reportProgress(50, 100);
    await delay(50);
    ctx.reportProgress(100, 100);
    return 'Progress tool finished';
  }

  /** Lets go of the stream mid-call (SEP-1699): the client resumes with Last-Event-ID to get the result. */
  @McpTool({ name: 'test_reconnection', description: 'Closes its SSE stream mid-call, then answers' })
  async reconnection(@McpContext() ctx: McpCallContext) {
    ctx.closeSseStream();
    await delay(100);
    return 'Reconnection test completed';
  }

  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      // Composition and conditional keywords (SEP-2106) are kept verbatim in tools/list and enforced on calls.
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  })
  jsonSchema202012(@McpArgs() args: { name?: string; address?: { street?: string; city?: string } }) {
    return { received: args };
  }
}
