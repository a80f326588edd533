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
} as const;
