import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { publicTask, TaskRunner } from './task.runner';
import { TaskExtensionRunner } from './task-extension.runner';
import { CallAdmission } from '../admission/call-admission';
import type { McpMethods } from '../methods/method-handler';
import type { RequestNote } from '../events/request-note';

/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of the 2025-11-25 experimental tasks,
 * and `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension (2026-07-28 requests).
 */
@Injectable()
export class TaskMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'tasks/get': async (params, _id, scope, note) => {
      if (!scope.session.stateless)
        return JSON.stringify(publicTask(await this.tasks.get(taskIdOf(params, note), scope)));
      // The extension's tasks/get hands out results, as tasks/result does: a fail-closed audit trail gates it.
      this.admission.checkAuditGate(note);
      return this.extension.get(taskIdOf(params, note), scope);
    },
    'tasks/update': (params, _id, scope, note) =>
      this.extension.update(taskIdOf(params, note), params.inputResponses, scope),
    'tasks/result': async (params, _id, scope, note) =>
      JSON.stringify(await this.tasks.result(taskIdOf(params, note), scope)),
    'tasks/cancel': async (params, _id, scope, note) =>
      scope.session.stateless
        ? this.extension.cancel(taskIdOf(params, note), scope)
        : JSON.stringify(await this.tasks.cancel(taskIdOf(params, note), scope)),
    'tasks/list': async (params, _id, scope) => {
      const { total } = await this.tasks.list(0, 0, scope);
      const offset = decodeCursor('tasks', params.cursor, total);
      const { tasks } = await this.tasks.list(offset, this.options.pageSize, scope);
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
function taskIdOf(params: Record<string, unknown>, note: RequestNote): unknown {
  if (typeof params.taskId === 'string') note.target = params.taskId;
  return params.taskId;
}
