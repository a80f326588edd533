/**
 * Provided (`true`) by `runMcpCli` to the application it runs: one command, then it stops,
 * beside any host of the same options (`npm start` in one terminal, the CLI in another). Its audit
 * trail is then the command line's own (`ResolvedAuditOptions.commandLine`: a chain, file and
 * spools of its own, one command at a time, no long wait for a forwarding sink at exit).
 * @internal for the CLI and the security providers
 */
export const MCP_COMMAND_LINE_RUN = Symbol('MCP:COMMAND_LINE_RUN');
