/**
 * What the gateway says. Messages a caller reads name the upstream and what happened, never its
 * URL, command or credentials; the log has the detail.
 */
export const GatewayMessages = {
  circuitOpen: (upstream: string, retryInSeconds: number) =>
    `The upstream MCP server ${upstream} is failing and calls to it are paused; retry in ${Math.max(1, retryInSeconds)} s.`,
  notConnected: (upstream: string, lastError: string | undefined) =>
    `The upstream MCP server ${upstream} is not connected${lastError ? ' (it could not be reached)' : ''}; retry later.`,
  timedOut: (upstream: string, timeoutMs: number) =>
    `The upstream MCP server ${upstream} did not answer within ${timeoutMs} ms; the operation may be retried later.`,
  unreachable: (upstream: string) =>
    `The upstream MCP server ${upstream} could not be reached; the operation may be retried later.`,
  upstreamError: (upstream: string, message: string) => `${upstream}: ${message}`,
  tooLarge: (upstream: string, maxBytes: number) =>
    `The upstream MCP server ${upstream} answered with more than ${maxBytes} bytes (limits.maxResponseBytes); the answer was refused.`,
  overflowed: (maxBytes: number, stdio: boolean) =>
    `the upstream sent a message of more than ${maxBytes} bytes (limits.maxResponseBytes); ` +
    (stdio ? 'its process is ended and started again' : 'it was refused'),
  tooManyEntries: (upstream: string, list: string, max: number) =>
    `${upstream} lists more than ${max} ${list} (limits.maxListEntries): the first ${max} are served, the others left out`,
  tooManyPages: (upstream: string, list: string, max: number) =>
    `${upstream}'s ${list} list has more than ${max} pages (limits.maxListPages): the entries of the first ${max} are served, no further page is read`,
  entryTooLarge: (bytes: number, max: number) =>
    `its definition takes ${bytes} bytes as JSON, more than limits.maxEntryBytes (${max})`,
  relayRefused: (method: string) =>
    `The gateway cannot tell which of its clients this ${method} request is for; it is not relayed.`,
  relayUnsupported: (method: string) =>
    `The client of this call does not support ${method}; the gateway cannot relay it.`,
  tooManyInputRounds: (rounds: number) =>
    `The upstream asked for the client's input more than ${rounds} times for one request; the gateway gave up on it.`,
  unknownInputRequest: (method: string) =>
    `The upstream asked for input of a kind the gateway does not relay (${method}).`,
  relayRefusedLog: (method: string, calls: number) =>
    `${method} from the upstream refused: ${calls === 0 ? 'no call in flight' : `${calls} calls of different clients in flight`}`,
  connectFailed: (upstream: string, reason: string, retryMs: number) =>
    `cannot connect to ${upstream}: ${reason}; retrying in ${retryMs} ms`,
  lost: (upstream: string, reason: string, retryMs: number) =>
    `lost the connection to ${upstream} (${reason}); reconnecting in ${retryMs} ms`,
} as const;
