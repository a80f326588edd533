import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpContext, McpPrompt, McpTool, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

type ElicitParams = Parameters<McpCallContext['elicit']>[0];
type SampleParams = Parameters<McpCallContext['sample']>[0];

/** A form asking for one string field. */
const askFor = (message: string, field: string): ElicitParams => ({
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
});

const confirmation: ElicitParams = {
  message: 'Please confirm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};

const question = (text: string, maxTokens: number): SampleParams => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
  maxTokens,
});

const textOf = (result: Awaited<ReturnType<McpCallContext['sample']>>) => {
  const content = Array.isArray(result.content) ? result.content[0] : result.content;
  return content?.type === 'text' ? content.text : JSON.stringify(content);
};

/**
 * Tools and a prompt that ask the client for input (SEP-2322 scenarios `input-required-result-*`).
 * They are plain `ctx.elicit()`/`ctx.sample()`/`ctx.roots()` calls: a 2025-era session sends them
 * as requests, a 2026-07-28 request answers with an `InputRequiredResult`. The keys the suite
 * checks are named with `{ key }`.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class InputRequiredFixtures {
  @McpTool({ name: 'test_input_required_result_elicitation', description: 'Asks the user for a name' })
  async elicitation(@McpContext() ctx: McpCallContext) {
    const { content } = await ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' });
    return `Hello, ${String(content?.name)}!`;
  }

  @McpTool({ name: 'test_input_required_result_sampling', description: 'Asks the client model a question' })
  async sampling(@McpContext() ctx: McpCallContext) {
    const answer = await ctx.sample(question('What is the capital of France?', 100), { key: 'capital_question' });
    return `The model answered: ${textOf(answer)}`;
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: "Lists the client's roots" })
  async listRoots(@McpContext() ctx: McpCallContext) {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${roots.map((root) => `${root.name ?? ''} (${root.uri})`).join(', ')}`;
  }

  @McpTool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation' })
  async requestState(@McpContext() ctx: McpCallContext) {
    const { action, content } = await ctx.elicit(confirmation, { key: 'confirm' });
    return `state-ok: ${action}, ok=${String(content?.ok)}`;
  }

  @McpTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for three inputs at once' })
  async multipleInputs(@McpContext() ctx: McpCallContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }),
      ctx.sample(question('Generate a greeting', 50), { key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return `${textOf(greeting)} ${String(name.content?.name)} (${roots.length} roots)`;
  }

  @McpTool({ name: 'test_input_required_result_multi_round', description: 'Asks twice, one question at a time' })
  async multiRound(@McpContext() ctx: McpCallContext) {
    const name = await ctx.elicit(askFor('Step 1: What is your name?', 'name'), { key: 'step1' });
    const color = await ctx.elicit(askFor('Step 2: What is your favorite color?', 'color'), { key: 'step2' });
    return `${String(name.content?.name)} likes ${String(color.content?.color)}`;
  }

  @McpTool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation' })
  async tamperedState(@McpContext() ctx: McpCallContext) {
    const { action } = await ctx.elicit(confirmation, { key: 'confirm' });
    return `Confirmation: ${action}`;
  }

  @McpTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for what the client declared it can answer',
  })
  async capabilities(@McpContext() ctx: McpCallContext) {
    const declared = ctx.clientCapabilities;
    const answers = await Promise.all([
      declared.elicitation ? ctx.elicit(askFor('What is your name?', 'name'), { key: 'user_name' }) : undefined,
      declared.sampling ? ctx.sample(question('Generate a greeting', 50), { key: 'greeting' }) : undefined,
    ]);
    return `Answered: ${answers.filter((answer) => answer !== undefined).length}`;
  }

  @McpTool({ name: 'test_missing_capability', description: 'Needs sampling, whatever the client declared' })
  async missingCapability(@McpContext() ctx: McpCallContext) {
    return `The model answered: ${textOf(await ctx.sample(question('Say hello', 20)))}`;
  }

  @McpPrompt({ name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for context' })
  async prompt(@McpContext() ctx: McpCallContext) {
    const { content } = await ctx.elicit(askFor('What context should the prompt use?', 'context'), {
      key: 'user_context',
    });
    return `Use this context: ${String(content?.context)}`;
  }
}
