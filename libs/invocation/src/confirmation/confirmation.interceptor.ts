import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { from, mergeMap, of, type Observable } from 'rxjs';
import type { RegisteredTool } from '#libs/catalog';
import type { CallContext } from '../context/call-context';
import type { ConfirmationGate } from './confirmation.gate';

/**
 * Runs the confirmation gate as the innermost interceptor of a tool: after guards (a denied
 * call is never put to the user) and the application's interceptors, right before the method.
 */
export class ConfirmationInterceptor implements NestInterceptor {
  constructor(
    private readonly gate: ConfirmationGate,
    private readonly tool: RegisteredTool,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const [args, call] = context.getArgs<[unknown, CallContext]>();
    return from(this.gate.check(this.tool, args, call)).pipe(
      mergeMap((refusal) => (refusal ? of(refusal) : next.handle())),
    );
  }
}
