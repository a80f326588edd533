import { Injectable, Logger } from '@nestjs/common';
import type { McpRequestEvent, McpRequestObserver } from './mcp-request-event';

/**
 * The observers told of every finished request (metrics, dashboard statistics). Services add
 * themselves at start-up; a failing observer is logged and never fails the request.
 */
@Injectable()
export class McpRequestObservers {
  private readonly logger = new Logger('McpTelemetry');
  private observers: McpRequestObserver[] = [];

  add(observer: McpRequestObserver): void {
    this.observers = [...this.observers, observer];
  }

  get size(): number {
    return this.observers.length;
  }

  observe(event: McpRequestEvent): void {
    for (const observer of this.observers) {
      try {
        observer.observe(event);
      } catch (error) {
        this.logger.error(`A request observer failed: ${(error as Error)?.message ?? String(error)}`);
      }
    }
  }
}
