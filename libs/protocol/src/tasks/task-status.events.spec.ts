import { Logger } from '@nestjs/common';
import { TaskStatusEvents, taskStatusNotification } from './task-status.events';
import type { TaskStatusChange } from './task-status-change';

const CHANGE: TaskStatusChange = {
  task: { taskId: 't-1', status: 'completed', result: { content: [] } },
  owner: { principal: 'alice', session: undefined },
};

describe('TaskStatusEvents', () => {
  it('tells every listener until it stops, even when another listener throws', () => {
    const events = new TaskStatusEvents();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('broken listener');
    });
    const stop = events.subscribe((change) => seen.push(change.task.status));
    events.publish(CHANGE);
    stop();
    events.publish(CHANGE);
    expect(seen).toEqual(['completed']);
    expect(error).toHaveBeenCalledTimes(2);
    error.mockRestore();
  });

  it('writes a change as notifications/tasks carrying the task', () => {
    expect(JSON.parse(taskStatusNotification(CHANGE))).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { taskId: 't-1', status: 'completed', result: { content: [] } },
    });
  });
});
