import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { publicTask, TaskRunner } from './task.runner';
import { TaskExtensionRunner } from './task-extension.runner';
import { CallAdmission } from '../admission/call-admission';
import type { McpMethods } from '../methods/method-handler';
import type { RequestNote } from '../events/request-note';
import type { McpRequest } from '../requests/mcp-request';

/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of the 2025-11-25 experimental tasks,
 * and `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension (2026-07-28 requests).
 */
@Injectable()
export class TaskMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'tasks/get': async (request, _reply, note) => {
      if (!request.session.stateless)
        return JSON.stringify(publicTask(await this.tasks.get(taskIdOf(request, note), request)));
      // The extension's tasks/get hands out results, as tasks/result does: a fail-closed audit trail gates it.
      this.admission.checkAuditGate(note);
      return this.extension.get(taskIdOf(request, note), request);
    },
    'tasks/update': (request, _reply, note) =>
      this.extension.update(taskIdOf(request, note), request.params.inputResponses, request),
    'tasks/result': async (request, _reply, note) =>
      JSON.stringify(await this.tasks.result(taskIdOf(request, note), request)),
    'tasks/cancel': async (request, _reply, note) =>
      request.session.stateless
        ? this.extension.cancel(taskIdOf(request, note), request)
        : JSON.stringify(await this.tasks.cancel(taskIdOf(request, note), request)),
    'tasks/list': async (request) => {
      const { total } = await this.tasks.list(0, 0, request);
      const offset = decodeCursor('tasks', request.params.cursor, total);
      const { tasks } = await this.tasks.list(offset, this.options.pageSize, request);
      const end = offset + tasks.length;
      return JSON.stringify({ tasks, ...(end < total && { nextCursor: encodeCursor('tasks', end) }) });
    },
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly tasks: TaskRunner,
    private readonly extension: TaskExtensionRunner,
    private readonly admission: CallAdmission,
  ) {}
}

/** The task a request names, noted as the request's target for the audit trail. */
function taskIdOf({ params }: McpRequest, note: RequestNote): unknown {
  if (typeof params.taskId === 'string') note.target = params.taskId;
  return params.taskId;
}
