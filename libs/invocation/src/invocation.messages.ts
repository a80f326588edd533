/** Messages the model sees when a call fails; each says what to do differently. */
export const InvocationMessages = {
  invalidArguments: (tool: string, issues: readonly string[]) =>
    `Invalid arguments for tool "${tool}":\n${issues.map((issue) => `- ${issue}`).join('\n')}`,
  invalidOutput: (tool: string) =>
    `Tool "${tool}" produced a result that does not match its output schema; the error was logged on the server.`,
  missingStructuredContent: (tool: string) =>
    `Tool "${tool}" declares an output schema but returned no structured object; the error was logged on the server.`,
  internalError: (tool: string, reference: string) =>
    `Tool "${tool}" failed with an internal error (reference ${reference}). The details were logged on the server.`,
  cancelled: (tool: string) => `Call to tool "${tool}" was cancelled.`,
  shutDown: (tool: string) =>
    `Call to tool "${tool}" was cancelled: the host is shutting down and the call did not finish in time. It may have done part of its work; check before you retry it.`,
  timedOut: (tool: string, ms: number) =>
    `Tool "${tool}" timed out after ${ms} ms and was stopped. Try again with a narrower request.`,
  busy: (tool: string, limit: number) =>
    `Tool "${tool}" is busy (${limit} call(s) already running). Retry in a moment.`,
} as const;

/** Start-up diagnostics of the invocation layer: what is wrong and how to fix it. */
export const InvocationDiagnostics = {
  /** `call` is how the parameter is decorated, e.g. `McpArgs('id')`, without its pipes. */
  pipeNotCreated: (
    pipe: string,
    index: number,
    call: { decorator: string; data?: unknown },
    host: string,
    reason: string,
  ) => {
    const data = call.data === undefined ? '' : `'${String(call.data)}'`;
    return {
      problem: `pipe ${pipe} of parameter #${index} (@${call.decorator}(${data})) cannot be created: ${reason}`,
      fix:
        `provide its dependencies in the module of ${host}, or register ${pipe} as a provider, ` +
        `or pass an instance: @${call.decorator}(${data || 'undefined'}, new ${pipe}(...))`,
    };
  },
} as const;
