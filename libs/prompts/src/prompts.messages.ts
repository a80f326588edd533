/** Protocol errors of `prompts/get`, each saying how to correct the request. */
export const PromptMessages = {
  argumentsNotStrings: (prompt: string) => `prompts/get "${prompt}": "arguments" must be an object of string values`,
  missingArguments: (prompt: string, names: readonly string[]) =>
    `prompts/get "${prompt}": missing required argument${names.length > 1 ? 's' : ''} ${names.map((name) => `"${name}"`).join(', ')}`,
  undeclaredArguments: (prompt: string, names: readonly string[], declared: readonly string[]) =>
    `prompts/get "${prompt}": ${names.map((name) => `"${name}"`).join(', ')} ${names.length > 1 ? 'are not arguments' : 'is not an argument'} of this prompt; ` +
    (declared.length > 0 ? `it takes ${declared.map((name) => `"${name}"`).join(', ')}` : 'it takes none'),
  invalidArguments: (prompt: string, issues: readonly string[]) =>
    `prompts/get "${prompt}": invalid arguments: ${issues.join('; ')}`,
} as const;
