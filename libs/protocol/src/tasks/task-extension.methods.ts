import { Injectable } from '@nestjs/common';
import { TaskExtensionRunner } from './task-extension.runner';
import type { McpMethods } from '../methods/method-handler';
import { taskIdOf } from './task-id-of';

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension (2026-07-28 requests). Its
 * `tasks/get` hands out results, so the method table guards it in this era (the audit gate).
 */
@Injectable()
export class TaskExtensionMethods implements McpMethods {
  readonly era = 'stateless';
  readonly methods: McpMethods['methods'] = {
    'tasks/get': (request, _reply, note) => this.extension.get(taskIdOf(request, note), request),
    'tasks/update': (request, _reply, note) =>
      this.extension.update(taskIdOf(request, note), request.params.inputResponses, request),
    'tasks/cancel': (request, _reply, note) => this.extension.cancel(taskIdOf(request, note), request),
  };

  constructor(private readonly extension: TaskExtensionRunner) {}
}
