/**
 * A business error whose message is meant for the model: thrown from a tool, it becomes a
 * result with `isError: true` carrying exactly this message. Other exceptions (except Nest's
 * `HttpException`s) are logged and reported to the client without their details.
 *
 * @example
 * ```ts
 * throw new McpToolError(`Ticket ${id} is already closed; reopen it first.`);
 * ```
 */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}
