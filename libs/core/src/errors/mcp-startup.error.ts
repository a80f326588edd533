/** A problem found while the host starts, with the place it was found and how to fix it. */
export interface McpDiagnostic {
  /** Where: `Class.method`, or the option name. */
  where: string;
  problem: string;
  fix: string;
}

/**
 * Thrown at start-up with every problem found at once (duplicate tool names, bad names,
 * missing or double schemas, unsupported parameters, invalid options); the app does not start.
 * `McpCatalog` throws it too when an entry added at run time is invalid.
 */
export class McpStartupError extends Error {
  constructor(
    readonly diagnostics: readonly McpDiagnostic[],
    headline = 'MCP host cannot start',
  ) {
    super(
      `${headline}: ${diagnostics.length} problem(s) found\n` +
        diagnostics.map((d, i) => `  ${i + 1}. ${d.where}: ${d.problem}\n     fix: ${d.fix}`).join('\n'),
    );
    this.name = 'McpStartupError';
  }
}
