import { IntrinsicException } from '@nestjs/common';

/**
 * A business error whose message is meant for the model: thrown from a tool, it becomes a
 * result with `isError: true` carrying exactly this message. Other exceptions (except Nest's
 * `HttpException`s) are logged and reported to the client without their details. It is an
 * expected outcome, so Nest's exception filter does not log it as an error.
 *
 * @example
 * ```ts
 * throw new McpToolError(`Ticket ${id} is already closed; reopen it first.`);
 * ```
 */
export class McpToolError extends IntrinsicException {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}
