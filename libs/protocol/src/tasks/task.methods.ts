import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { publicTask, TaskRunner } from './task.runner';
import type { McpMethods } from '../methods/method-handler';
import { taskIdOf } from './task-id-of';

/** `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of the 2025-11-25 experimental tasks. */
@Injectable()
export class TaskMethods implements McpMethods {
  readonly era = 'session';
  readonly methods: McpMethods['methods'] = {
    'tasks/get': async (request, _reply, note) =>
      JSON.stringify(publicTask(await this.tasks.get(taskIdOf(request, note), request))),
    'tasks/result': async (request, _reply, note) =>
      JSON.stringify(await this.tasks.result(taskIdOf(request, note), request)),
    'tasks/cancel': async (request, _reply, note) =>
      JSON.stringify(await this.tasks.cancel(taskIdOf(request, note), request)),
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
  ) {}
}
