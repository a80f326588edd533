import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpCatalog, McpContext, McpPrompt, McpTool, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

const TOGGLED_TOOL = 'test_toggled_tool';
const TOGGLED_PROMPT = 'test_toggled_prompt';

/**
 * Diagnostic tools of the stateless scenario (`server-stateless`): a call that needs an
 * undeclared capability, a call whose stream must carry no server request, a call that logs
 * without a log level, and hooks that change the tool and prompt lists under an open
 * `subscriptions/listen` stream.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class StatelessFixtures {
  private toolShown = true;
  private promptShown = true;

  constructor(private readonly catalog: McpCatalog) {}

  /** Needs sampling: a client that did not declare it gets -32021, never a result. */
  @McpTool({ name: 'test_missing_capability', description: 'Asks the client model a question (needs sampling)' })
  async missingCapability(@McpContext() ctx: McpCallContext) {
    const result = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
      maxTokens: 20,
    });
    const content = Array.isArray(result.content) ? result.content[0] : result.content;
    return `Model said: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  /** Asks the user mid-call: the answer stream may carry notifications, never an `elicitation/create` request. */
  @McpTool({ name: 'test_streaming_elicitation', description: 'Asks the user a question while it runs' })
  async streamingElicitation(@McpContext() ctx: McpCallContext) {
    ctx.log.info('Asking the user');
    const result = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  /** Logs while it runs: a client that set no log level must receive none of it. */
  @McpTool({ name: 'test_logging_tool', description: 'Logs three messages, then answers' })
  logging(@McpContext() ctx: McpCallContext) {
    ctx.log.info('Logging tool started');
    ctx.log.debug('Logging tool working');
    ctx.log.info('Logging tool finished');
    return 'Logging tool finished';
  }

  /** Hides or shows `test_toggled_tool`, so that every call changes the tool list. */
  @McpTool({ name: 'test_trigger_tool_change', description: 'Changes the tool list (shows or hides a tool)' })
  triggerToolChange() {
    this.toolShown = !this.toolShown;
    if (this.toolShown) this.catalog.enable('tool', TOGGLED_TOOL);
    else this.catalog.disable('tool', TOGGLED_TOOL);
    return `${TOGGLED_TOOL} is now ${this.toolShown ? 'listed' : 'hidden'}`;
  }

  /** Hides or shows `test_toggled_prompt`, so that every call changes the prompt list. */
  @McpTool({ name: 'test_trigger_prompt_change', description: 'Changes the prompt list (shows or hides a prompt)' })
  triggerPromptChange() {
    this.promptShown = !this.promptShown;
    if (this.promptShown) this.catalog.enable('prompt', TOGGLED_PROMPT);
    else this.catalog.disable('prompt', TOGGLED_PROMPT);
    return `${TOGGLED_PROMPT} is now ${this.promptShown ? 'listed' : 'hidden'}`;
  }

  @McpTool({ name: TOGGLED_TOOL, description: 'Comes and goes with test_trigger_tool_change' })
  toggledTool() {
    return 'Toggled tool called';
  }

  @McpPrompt({ name: TOGGLED_PROMPT, description: 'Comes and goes with test_trigger_prompt_change' })
  toggledPrompt() {
    return 'Toggled prompt';
  }
}
