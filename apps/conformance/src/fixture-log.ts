import { appendFileSync } from 'node:fs';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { McpExecutionContext } from 'nest-mcp-host';

/**
 * Records every fixture invocation as a JSON line in `$FIXTURE_LOG`, so the conformance run
 * can prove that each scenario really reached its fixture (an unknown tool must not pass).
 * It is an ordinary Nest interceptor: the MCP pipeline runs it like any other.
 */
@Injectable()
export class FixtureLogInterceptor implements NestInterceptor {
  private readonly file = process.env.FIXTURE_LOG;

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.file) {
      const { kind, target } = McpExecutionContext.create(context).getCallContext();
      appendFileSync(this.file, `${JSON.stringify({ kind, name: target })}\n`);
    }
    return next.handle();
  }
}
