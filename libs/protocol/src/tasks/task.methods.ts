import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { publicTask, TaskRunner } from './task.runner';
import type { McpMethods } from '../methods/method-handler';
import type { RequestNote } from '../events/request-note';

/** `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` (2025-11-25, experimental). */
@Injectable()
export class TaskMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'tasks/get': async (params, _id, scope, note) =>
      JSON.stringify(publicTask(await this.tasks.get(taskIdOf(params, note), scope))),
    'tasks/result': async (params, _id, scope, note) =>
      JSON.stringify(await this.tasks.result(taskIdOf(params, note), scope)),
    'tasks/cancel': async (params, _id, scope, note) =>
      JSON.stringify(await this.tasks.cancel(taskIdOf(params, note), scope)),
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
  ) {}
}

/** The task a request names, noted as the request's target for the audit trail. */
function taskIdOf(params: Record<string, unknown>, note: RequestNote): unknown {
  if (typeof params.taskId === 'string') note.target = params.taskId;
  return params.taskId;
}
