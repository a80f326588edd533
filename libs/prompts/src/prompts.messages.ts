/** Protocol errors of `prompts/get`, each saying how to correct the request. */
export const PromptMessages = {
  argumentsNotStrings: (prompt: string) => `prompts/get "${prompt}": "arguments" must be an object of string values`,
  missingArguments: (prompt: string, names: readonly string[]) =>
    `prompts/get "${prompt}": missing required argument${names.length > 1 ? 's' : ''} ${names.map((name) => `"${name}"`).join(', ')}`,
  invalidArguments: (prompt: string, issues: readonly string[]) => `prompts/get "${prompt}": invalid arguments: ${issues.join('; ')}`,
} as const;
