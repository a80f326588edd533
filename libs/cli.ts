// `nest-mcp-host/cli`: the command line of an application's tools, prompts and resources, apart
// from the root entry so that servers never load it.
export { runMcpCli, type McpCliOptions } from './cli/src/run-mcp-cli';
export { CliExitCode } from './cli/src/command-line/cli-exit-codes';
export type { CliIo, CliOutput } from './cli/src/command-line/cli-io';
