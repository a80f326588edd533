import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpCatalog, McpContext, McpTool, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

const DYNAMIC_TOOL = 'test_dynamic_tool';
const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/**
 * What the suite's server-stateless scenario calls around `subscriptions/listen`: a tool that
 * logs (a 2026-07-28 request without a log level in `_meta` must get no `notifications/message`)
 * and two that change the tool and prompt lists at run time, through `McpCatalog`, so that open
 * listen streams have a change to report.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class ListenFixtures {
  constructor(private readonly catalog: McpCatalog) {}

  @McpTool({
    name: 'test_logging_tool',
    description: 'Logs a message (sent only to clients that asked for a log level)',
  })
  logging(@McpContext() ctx: McpCallContext) {
    ctx.log.info('Diagnostic trace logging activated');
    return 'Logging evaluated';
  }

  @McpTool({ name: 'test_trigger_tool_change', description: 'Adds or removes a tool, so the tool list changes' })
  triggerToolChange() {
    if (this.catalog.remove('tool', DYNAMIC_TOOL)) return `Removed ${DYNAMIC_TOOL}`;
    this.catalog.addTool({ name: DYNAMIC_TOOL, description: 'Added at run time' }, () => 'dynamic');
    return `Added ${DYNAMIC_TOOL}`;
  }

  @McpTool({ name: 'test_trigger_prompt_change', description: 'Adds or removes a prompt, so the prompt list changes' })
  triggerPromptChange() {
    if (this.catalog.remove('prompt', DYNAMIC_PROMPT)) return `Removed ${DYNAMIC_PROMPT}`;
    this.catalog.addPrompt({ name: DYNAMIC_PROMPT, description: 'Added at run time' }, () => 'dynamic');
    return `Added ${DYNAMIC_PROMPT}`;
  }
}
