import { setTimeout as delay } from 'node:timers/promises';
import { Injectable, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  McpArgs,
  McpContext,
  McpTool,
  McpToolError,
  type McpCallContext,
} from 'nest-mcp-host';
import { FixtureLogInterceptor } from './fixture-log';

type ElicitParams = Parameters<McpCallContext['elicit']>[0];

/** A yes/no question. */
function askToConfirm(message: string): ElicitParams {
  return {
    message,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  };
}

/**
 * Tools of the tasks-extension scenarios (`tasks-*`). Whether a call becomes a task is the host's
 * decision (the tool's `task` option and the client's declared extension); the handlers are plain
 * tools, as for a 2025-11-25 client.
 */
@Injectable()
@UseInterceptors(FixtureLogInterceptor)
export class TaskFixtures {
  /** Never a task. */
  @McpTool({ name: 'greet', description: 'Greets someone by name', input: z.object({ name: z.string() }) })
  greet(@McpArgs('name') name: string) {
    return `Hello, ${name}!`;
  }

  /** Sleeps the given seconds; cancelling the task (or the call) stops it. */
  @McpTool({
    name: 'slow_compute',
    description: 'Computes for the given number of seconds',
    input: z.object({ seconds: z.number().min(0).max(300), label: z.string().optional() }),
    task: 'optional',
  })
  async slowCompute(
    @McpArgs() { seconds, label }: { seconds: number; label?: string },
    @McpContext() ctx: McpCallContext,
  ) {
    await delay(seconds * 1000, undefined, { signal: ctx.signal });
    return `Computed ${label ?? 'result'} after ${seconds} s`;
  }

  /** Runs only as a task; its work always fails (a tool error, not a protocol error). */
  @McpTool({ name: 'failing_job', description: 'A job that always fails', task: 'required' })
  failingJob(): never {
    throw new McpToolError('The job failed, as this fixture always does');
  }

  /** Fails with a JSON-RPC error: a task ends `failed` with that error. */
  @McpTool({ name: 'protocol_error_job', description: 'A job that hits a protocol error', task: 'optional' })
  protocolErrorJob(): never {
    throw new JsonRpcError(
      JsonRpcErrorCode.INTERNAL_ERROR,
      'The job hit a protocol error, as this fixture always does',
    );
  }

  /** Asks the user to confirm once, mid-task. */
  @McpTool({
    name: 'confirm_delete',
    description: 'Deletes a file after the user confirms',
    input: z.object({ filename: z.string() }),
    task: 'optional',
  })
  async confirmDelete(@McpArgs('filename') filename: string, @McpContext() ctx: McpCallContext) {
    const result = await ctx.elicit(askToConfirm(`Delete ${filename}?`), { key: 'confirm_delete' });
    const confirmed = result.action === 'accept' && result.content?.confirm === true;
    return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  /** Asks two things at the same time, so two inputs are pending at once. */
  @McpTool({ name: 'multi_input', description: 'Asks for a name and a confirmation at once', task: 'optional' })
  async multiInput(@McpContext() ctx: McpCallContext) {
    const [name, confirm] = await Promise.all([
      ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'name' },
      ),
      ctx.elicit(askToConfirm('Proceed?'), { key: 'confirm' }),
    ]);
    return `name=${JSON.stringify(name.content?.name ?? null)}, confirm=${JSON.stringify(confirm.content?.confirm ?? null)}`;
  }

  /** Asks the user's name before the task exists, then does the rest of its work as a task. */
  @McpTool({
    name: 'test_tool_with_task',
    description: "Asks the user's name, then greets them from a task",
    task: 'optional',
    taskStart: 'manual',
  })
  async withTask(@McpContext() ctx: McpCallContext) {
    const result = await ctx.elicit(
      {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { key: 'user_name' },
    );
    await ctx.continueAsTask();
    const name = result.action === 'accept' ? String(result.content?.name) : 'stranger';
    return `Hello, ${name}! (greeted from a task)`;
  }
}
