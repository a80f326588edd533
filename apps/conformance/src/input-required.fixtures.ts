import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpContext, McpPrompt, McpTool, userMessage, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

type ElicitParams = Parameters<McpCallContext['elicit']>[0];

/** A form asking for one string field. */
function askFor(field: string, message: string): ElicitParams {
  return {
    message,
    requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
  };
}

const CONFIRM: ElicitParams = {
  message: 'Please confirm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};

/** The accepted content of an elicitation, or nothing when the user declined or cancelled. */
function accepted(result: Awaited<ReturnType<McpCallContext['elicit']>>): Record<string, unknown> | undefined {
  return result.action === 'accept' ? (result.content ?? {}) : undefined;
}

function samplingText(result: Awaited<ReturnType<McpCallContext['sample']>>): string {
  const content = Array.isArray(result.content) ? result.content[0] : result.content;
  return content?.type === 'text' ? content.text : JSON.stringify(content);
}

/**
 * Tools (and a prompt) of the `input-required-result-*` scenarios. They ask the client the way a
 * 2025-11-25 tool does (`ctx.elicit`, `ctx.sample`, `ctx.roots`); for a 2026-07-28 client the host
 * answers each round with an `InputRequiredResult` and runs the handler again with the answers.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class InputRequiredFixtures {
  @McpTool({ name: 'test_input_required_result_elicitation', description: "Asks the user's name, then greets them" })
  async elicitation(@McpContext() ctx: McpCallContext) {
    const answer = accepted(await ctx.elicit(askFor('name', 'What is your name?'), { key: 'user_name' }));
    return answer ? `Hello, ${String(answer.name)}!` : 'Hello, stranger!';
  }

  @McpTool({ name: 'test_input_required_result_sampling', description: 'Asks the client model a question' })
  async sampling(@McpContext() ctx: McpCallContext) {
    const result = await ctx.sample(
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
      { key: 'capital_question' },
    );
    return `Model answer: ${samplingText(result)}`;
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: "Lists the client's roots" })
  async listRoots(@McpContext() ctx: McpCallContext) {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${roots.map((root) => root.uri).join(', ') || '(none)'}`;
  }

  /** Its answer says `state-ok`: the host received the echoed request state and resumed from it. */
  @McpTool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation' })
  async requestState(@McpContext() ctx: McpCallContext) {
    const answer = accepted(await ctx.elicit(CONFIRM, { key: 'confirm' }));
    return `state-ok: confirmed=${String(answer?.ok ?? false)}`;
  }

  /** Asks three things at once: they come back as one round with three input requests. */
  @McpTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks a name, a greeting and the roots' })
  async multipleInputs(@McpContext() ctx: McpCallContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(askFor('name', 'What is your name?'), { key: 'user_name' }),
      ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        { key: 'greeting' },
      ),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return `${samplingText(greeting)} ${String(accepted(name)?.name ?? 'stranger')} (${roots.length} root(s))`;
  }

  /** Asks one thing, then another: two rounds, each with its own request state. */
  @McpTool({ name: 'test_input_required_result_multi_round', description: 'Asks a name, then a favourite colour' })
  async multiRound(@McpContext() ctx: McpCallContext) {
    const name = accepted(await ctx.elicit(askFor('name', 'Step 1: What is your name?'), { key: 'step1' }));
    const color = accepted(await ctx.elicit(askFor('color', 'Step 2: What is your favorite color?'), { key: 'step2' }));
    return `${String(name?.name ?? 'stranger')} likes ${String(color?.color ?? 'no colour')}`;
  }

  /** The host must refuse a retry whose request state was changed on the way. */
  @McpTool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation' })
  async tamperedState(@McpContext() ctx: McpCallContext) {
    const answer = accepted(await ctx.elicit(CONFIRM, { key: 'confirm' }));
    return `Confirmed: ${String(answer?.ok ?? false)}`;
  }

  /** Asks only through what the client declared: without elicitation, only the model is asked. */
  @McpTool({ name: 'test_input_required_result_capabilities', description: 'Asks the user and the model what it can' })
  async capabilities(@McpContext() ctx: McpCallContext) {
    const { elicitation, sampling } = ctx.clientCapabilities;
    const [name, model] = await Promise.all([
      elicitation ? ctx.elicit(askFor('name', 'What is your name?'), { key: 'user_name' }) : undefined,
      sampling
        ? ctx.sample(
            { messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a name' } }], maxTokens: 20 },
            { key: 'suggestion' },
          )
        : undefined,
    ]);
    const user = name && accepted(name)?.name;
    return `user=${String(user ?? '-')}, model=${model ? samplingText(model) : '-'}`;
  }

  /** A prompt that needs the user's input first: input-required results are not only for tools. */
  @McpPrompt({ name: 'test_input_required_result_prompt', description: 'A prompt built from context the user gives' })
  async prompt(@McpContext() ctx: McpCallContext) {
    const answer = accepted(
      await ctx.elicit(askFor('context', 'What context should the prompt use?'), { key: 'user_context' }),
    );
    return [userMessage(`Use this context: ${String(answer?.context ?? 'none')}`)];
  }
}
