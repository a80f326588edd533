import { Logger } from '@nestjs/common';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { isMcpLogLevel } from '#libs/core';
import type { McpAnswer, McpSession, ReplyChannel } from '#libs/protocol';
import type { McpInvokeOptions } from './mcp-invoke.options';

interface Message {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

/**
 * The client side of one in-process request: what the call sends back (progress, log messages,
 * requests for user input) goes to the caller's callbacks, and the answers to the session, as a
 * client's responses would. Its answer is the dispatcher's to return: the caller awaits it there.
 */
export class InProcessChannel implements ReplyChannel {
  private readonly logger = new Logger('McpInvoker');

  constructor(
    private readonly session: McpSession,
    private readonly options: McpInvokeOptions,
  ) {}

  /** Takes one message the call sends; always delivered (the caller is in this process). */
  send(text: string): boolean {
    const message = JSON.parse(text) as Message;
    if (message.id !== undefined && message.method)
      void this.answerRequest(message.id, message.method, message.params ?? {});
    else if (message.method) this.notified(message.method, message.params ?? {});
    return true;
  }

  answer(_answer: McpAnswer): Promise<void> {
    return Promise.resolve();
  }

  private notified(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case 'notifications/progress':
        this.options.onProgress?.({
          progress: params.progress as number,
          ...(typeof params.total === 'number' && { total: params.total }),
          ...(typeof params.message === 'string' && { message: params.message }),
        });
        break;
      case 'notifications/message':
        if (isMcpLogLevel(params.level))
          this.options.onLog?.(
            params.level,
            params.data,
            typeof params.logger === 'string' ? params.logger : undefined,
          );
        break;
      default:
      // Cancellations of the call's own requests, list changes: nothing for an in-process caller.
    }
  }

  private async answerRequest(id: string | number, method: string, params: Record<string, unknown>): Promise<void> {
    const requests = this.session.clientRequests;
    if (method !== 'elicitation/create' || !this.options.elicit) {
      requests.settle(id, undefined, { message: `${method} is not available to an in-process caller` });
      return;
    }
    try {
      requests.settle(id, await this.options.elicit(params as ElicitRequest['params']), undefined);
    } catch (error) {
      this.logger.warn(`The elicit callback failed: ${(error as Error)?.message ?? String(error)}`);
      requests.settle(id, undefined, { message: 'the caller could not answer' });
    }
  }
}
