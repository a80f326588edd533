import type { McpAnswer, ReplyChannel } from '../requests/reply-channel';

/**
 * The way back to the client of a task's call once the request that created the task is
 * answered: its messages go where the era sends them (2025-11-25: the session's stream; the tasks
 * extension: nowhere, the client polls), and there is no answer to deliver nor request to lose.
 */
export class BackgroundReply implements ReplyChannel {
  constructor(private readonly deliver: (message: string) => boolean) {}

  send(message: string): boolean {
    return this.deliver(message);
  }

  answer(_answer: McpAnswer): Promise<void> {
    return Promise.resolve();
  }
}
