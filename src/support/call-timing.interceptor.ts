import { Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import { McpExecutionContext } from 'nest-mcp-host';

/** Logs how long each tool call took, with the client that made it (debug level). */
@Injectable()
export class CallTimingInterceptor implements NestInterceptor {
  private readonly logger = new Logger('SupportDesk');

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = McpExecutionContext.create(context).getCallContext();
    const started = performance.now();
    return next
      .handle()
      .pipe(
        finalize(() =>
          this.logger.debug(
            `${call.target} for ${call.clientInfo?.name ?? 'unknown client'} took ${(performance.now() - started).toFixed(1)} ms`,
          ),
        ),
      );
  }
}
