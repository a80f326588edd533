import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpClientRequestError } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import type { Invocation } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import type { ClientInputs } from '../methods/method-handler';
import type { AdmittedCall } from '../admission/admitted-call';
import type { McpRequest } from '../requests/mcp-request';
import type { McpAnswer, ReplyChannel } from '../requests/reply-channel';
import { TaskLife, type TaskEra } from './task-life';
import { taskRunNote } from './task-run-note';
import type { TaskInputs } from './task-inputs';
import type { StoredTask } from './task.store';
import { createTaskResult } from './task-wire';

/** What a hand-off needs of the era whose task the call becomes. */
export interface HandOffTarget extends TaskEra {
  /** Stores the new task (and tells the client of it). */
  create(request: McpRequest): Promise<StoredTask>;
  /** Where the task's call asks its client from then on. */
  inputsFor(task: StoredTask, request: McpRequest): TaskInputs;
}

/** Before the hand-off, where no input round gathers the call's requests: they cannot reach the client. */
const UNREACHABLE: ClientInputs = {
  request: (method) =>
    Promise.reject(
      new McpClientRequestError(
        `${method} cannot reach the client before the call becomes a task: ask after continueAsTask()`,
        'unreachable',
      ),
    ),
};

/**
 * The request's way back to its client until the hand-off, then nothing: the task's call keeps
 * nothing of its request but who the client is (a lost connection no longer aborts it).
 */
class HandOffReply implements ReplyChannel {
  private handedOff = false;
  private readonly untie: (() => void)[] = [];

  constructor(private readonly reply: ReplyChannel) {}

  send(message: string): boolean {
    return !this.handedOff && this.reply.send(message);
  }

  answer(answer: McpAnswer): Promise<void> {
    return this.reply.answer(answer);
  }

  onLost(abort: (reason: Error) => void): () => void {
    const off = this.reply.onLost?.(abort) ?? (() => undefined);
    this.untie.push(off);
    return off;
  }

  release(): void {
    if (!this.handedOff) this.reply.release?.();
  }

  handOff(): void {
    this.handedOff = true;
    for (const off of this.untie.splice(0)) off();
  }
}

/**
 * A call of a tool that becomes a task where its handler says so (`taskStart: 'manual'`, the
 * tasks extension): served as any 2026-07-28 call (input-required rounds) until the handler calls
 * `continueAsTask`, then handed to a task (`TaskLife`) whose result the client polls. Once the
 * handler asked, the client gets the task, even when the call ends first.
 */
@Injectable()
export class TaskHandOff {
  constructor(
    private readonly calls: CallScope,
    private readonly life: TaskLife,
  ) {}

  /**
   * @returns the JSON of the `CreateTaskResult`, or of the call's own result when it ended before
   *   it became a task
   */
  async start(call: AdmittedCall<RegisteredTool>, confirm: boolean, target: HandOffTarget): Promise<string> {
    const { request, note: created } = call;
    const run = taskRunNote(call);
    let inputs: TaskInputs | undefined;
    let cancel: (reason: Error) => void = () => undefined;
    let starting: Promise<StoredTask> | undefined;
    let onStart: (start: { starting: Promise<StoredTask> }) => void = () => undefined;
    const started = new Promise<{ starting: Promise<StoredTask> }>((resolve) => (onStart = resolve));
    const reply = new HandOffReply(call.reply);
    // Until then, the call asks as any 2026-07-28 call does: input-required rounds.
    const round = this.calls.openInputRound(call);
    const beforeTask = round ?? UNREACHABLE;
    const result = this.calls.run(
      { ...call, note: run },
      (context) => {
        cancel = (reason) => context.cancellation.cancel(reason);
        const invoked = this.life.invoke(call, context, confirm);
        // Once handed off, the round never decides: the value is the tool's result.
        return (round ? round.race(invoked, context.cancellation) : invoked) as Promise<Invocation<CallToolResult>>;
      },
      {
        reply,
        clientInputs: {
          request: (method, params, timeoutMs, signal, options) =>
            (inputs ?? beforeTask).request(method, params, timeoutMs, signal, options),
          missingCapability: (capability, required, what, signal) =>
            inputs ? undefined : beforeTask.missingCapability?.(capability, required, what, signal),
        },
        continueAsTask: async () => {
          if (!starting) {
            round?.handOff();
            starting = target.create(request).then((stored) => {
              inputs = target.inputsFor(stored, request);
              reply.handOff();
              return stored;
            });
            onStart({ starting });
          }
          await starting;
        },
      },
    );
    const first = await Promise.race([
      result.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      started,
    ]);
    const pending = 'starting' in first ? first.starting : starting;
    if (pending) {
      const task = await pending;
      this.life.track({ task, result, run, cancel: (reason) => cancel(reason), inputs }, target, request);
      return createTaskResult(task);
    }
    // It ended before becoming a task: the request's own note tells how.
    if (round?.askedForInput) created.continuedByRetry = true;
    if (run.outcome !== 'ok') created.fail(run.outcome, run.errorCode, run.error);
    if (run.withdrawn) created.withdrawn = true;
    if ('error' in first) throw first.error;
    return JSON.stringify((first as { value: CallToolResult }).value);
  }
}
