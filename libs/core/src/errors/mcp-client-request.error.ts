import { McpToolError } from './mcp-tool.error';

/**
 * A request to the client (elicitation, sampling, roots) could not be served: the client lacks
 * the capability, refused, did not answer in time, or the call was cancelled. It is an
 * `McpToolError`, so a tool that does not catch it reports its message to the model.
 */
export class McpClientRequestError extends McpToolError {
  constructor(
    message: string,
    readonly reason: 'unsupported' | 'refused' | 'timeout' | 'cancelled' | 'unreachable',
  ) {
    super(message);
    this.name = 'McpClientRequestError';
  }
}
