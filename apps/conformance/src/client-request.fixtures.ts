import { Injectable, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import { McpArgs, McpContext, McpTool, type McpCallContext } from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

/** Tools that ask the client for something: sampling and elicitation. */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class ClientRequestFixtures {
  @McpTool({
    name: 'test_sampling',
    description: 'Asks the client model to answer a prompt',
    input: z.object({ prompt: z.string() }),
  })
  async sampling(@McpArgs('prompt') prompt: string, @McpContext() ctx: McpCallContext) {
    const result = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    const content = Array.isArray(result.content) ? result.content[0] : result.content;
    return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  @McpTool({
    name: 'test_elicitation',
    description: 'Asks the user for a name and email',
    input: z.object({ message: z.string() }),
  })
  async elicitation(@McpArgs('message') message: string, @McpContext() ctx: McpCallContext) {
    const result = await ctx.elicit({
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  @McpTool({ name: 'test_elicitation_sep1034_defaults', description: 'Elicits with defaults for every primitive type' })
  async defaults(@McpContext() ctx: McpCallContext) {
    const result = await ctx.elicit({
      message: 'Confirm your profile',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }

  @McpTool({ name: 'test_elicitation_sep1330_enums', description: 'Elicits with the five enum forms of SEP-1330' })
  async enums(@McpContext() ctx: McpCallContext) {
    const result = await ctx.elicit({
      message: 'Pick options',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    } as Parameters<McpCallContext['elicit']>[0]);
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  }
}
