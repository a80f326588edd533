import { basename } from 'node:path';
import {
  Global,
  Module,
  type DynamicModule,
  type INestApplicationContext,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStartupError } from '#libs/core';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { McpInvocationError, McpInvoker } from '#libs/hosting';
import { McpApprovals } from '#libs/operations';
import { Authenticator, MCP_COMMAND_LINE_RUN } from '#libs/security';
import { CliUsageError } from './errors/cli-usage.error';
import { approvalsCommand } from './commands/approvals.command';
import { callCommand } from './commands/call.command';
import { catalogCommand } from './commands/catalog.command';
import { describeCommand } from './commands/describe.command';
import { listCommand } from './commands/list.command';
import { promptCommand } from './commands/prompt.command';
import { readCommand } from './commands/read.command';
import { terminalElicitation } from './confirm/terminal-elicitation';
import type { CliContext } from './command-line/cli-context';
import { CliExitCode, failureExitCode } from './command-line/cli-exit-codes';
import { CliFailure } from './command-line/cli-failure';
import { CliLogger } from './command-line/cli-logger';
import { processIo, type CliIo } from './command-line/cli-io';
import { parseCommandLine, type CliCommandLine } from './command-line/global-options';
import { usageOf } from './usage';
import { CliMessages } from './command-line/cli.messages';

/** Options of `runMcpCli`. */
export interface McpCliOptions {
  /** The program's name in usage lines. @default the entry file's name */
  name?: string;
  /** The words after the program. @default process.argv.slice(2) */
  argv?: readonly string[];
  /** The environment variable an API key is read from when `--api-key` is not given. @default 'MCP_API_KEY' */
  apiKeyEnv?: string;
  /** The application's log levels, written to stderr (stdout is the command's). @default ['error', 'warn'] */
  logLevels?: LogLevel[];
  /** Where it reads and writes. @default the process's stdin, stdout and stderr */
  io?: CliIo;
  /** Ends the process with the exit code once the application has closed. @default true */
  exit?: boolean;
}

type Command = (context: CliContext, words: readonly string[]) => Promise<CliExitCode>;

// A Map, not an object: a word such as "constructor" must not find Object's own members.
const COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['list', listCommand],
  ['describe', describeCommand],
  ['call', callCommand],
  ['prompt', promptCommand],
  ['read', readCommand],
  ['approvals', approvalsCommand],
  ['catalog', catalogCommand],
]);

/**
 * Runs one command of the application's tools, prompts and resources from the command line,
 * with the same binding, validation, guards, throttling, confirmation and audit (transport
 * `cli`) as an MCP call. One line in the application's own entry file gives it a CLI.
 * @returns the exit code (0 done, 1 tool error, 2 usage, 3 refused, 4 not found, 130 interrupted)
 * @example
 * ```ts
 * // src/cli.ts — `node dist/cli.js call search_tickets --status open`
 * import { runMcpCli } from 'nest-mcp-host/cli';
 * import { AppModule } from './app.module';
 *
 * void runMcpCli(AppModule);
 * ```
 */
export async function runMcpCli(module: Type | DynamicModule, options: McpCliOptions = {}): Promise<number> {
  const io = options.io ?? processIo();
  const program = options.name ?? basename(process.argv[1] ?? 'cli').replace(/\.[cm]?js$/, '');
  const apiKeyEnv = options.apiKeyEnv ?? 'MCP_API_KEY';
  const code = await run(module, options, io, program, apiKeyEnv);
  if (options.exit !== false) process.exit(code);
  return code;
}

async function run(
  module: Type | DynamicModule,
  options: McpCliOptions,
  io: CliIo,
  program: string,
  apiKeyEnv: string,
): Promise<number> {
  let line: CliCommandLine;
  try {
    line = parseCommandLine(options.argv ?? process.argv.slice(2), process.env[apiKeyEnv] || undefined);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return CliExitCode.usage;
  }
  const name = line.command?.toLowerCase();
  const command = name === undefined ? undefined : COMMANDS.get(name);
  if (!command || (line.global.help && (name !== 'call' || line.words.length === 0))) {
    const unknown = name !== undefined && !command && name !== 'help';
    (unknown ? io.stderr : io.stdout).write(
      `${unknown ? `Unknown command "${line.command}".\n\n` : ''}${usageOf(program, apiKeyEnv)}`,
    );
    return unknown || (name === undefined && !line.global.help) ? CliExitCode.usage : CliExitCode.ok;
  }
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(commandLineRunOf(module), {
      logger: new CliLogger({ logLevels: options.logLevels ?? ['error', 'warn'] }),
      abortOnError: false,
    });
  } catch (error) {
    io.stderr.write(
      `${error instanceof McpStartupError ? error.message : String((error as Error)?.message ?? error)}\n`,
    );
    return CliExitCode.toolError;
  }
  if (line.global.apiKey !== undefined && app.get(Authenticator).mode === 'none') {
    io.stderr.write(`${CliMessages.uncheckableApiKey(apiKeyEnv)}\n`);
    await app.close();
    return CliExitCode.usage;
  }
  const interrupted = new AbortController();
  const onInterrupt = () => {
    // A second Ctrl-C does not wait for the call to stop.
    if (interrupted.signal.aborted) process.exit(CliExitCode.interrupted);
    io.stderr.write('\nInterrupted: cancelling the call (Ctrl-C again to quit at once)\n');
    interrupted.abort(new Error('interrupted on the command line (SIGINT)'));
  };
  process.on('SIGINT', onInterrupt);
  // SIGTERM stops the application as it stops a host: the call in flight gets shutdownTimeoutMs to
  // finish, is then cancelled and answered so, and its record is written before the process ends.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close());
  let terminated = false;
  const onTerminate = () => {
    terminated = true;
    io.stderr.write('\nTerminated: stopping once the call in flight is answered\n');
    void close();
  };
  process.on('SIGTERM', onTerminate);
  try {
    const context: CliContext = {
      program,
      io,
      invoker: app.get(McpInvoker),
      tools: app.get(ToolRegistry),
      prompts: app.get(PromptRegistry),
      resources: app.get(ResourceRegistry),
      approvals: app.get(McpApprovals),
      global: line.global,
      invoke: {
        credential: line.global.apiKey,
        transport: 'cli',
        clientInfo: { name: program, version: 'cli' },
        signal: interrupted.signal,
        elicit: terminalElicitation(io, line.global.yes),
        onLog: (level, data, logger) =>
          io.stderr.write(
            `${level}${logger ? ` ${logger}` : ''}: ${typeof data === 'string' ? data : JSON.stringify(data)}\n`,
          ),
      },
    };
    const code = await command(context, line.words);
    return terminated ? CliExitCode.terminated : code;
  } catch (error) {
    const code = reportFailure(io, error);
    return terminated ? CliExitCode.terminated : code;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
    await close();
  }
}

/** Tells the application's providers it runs one command (`MCP_COMMAND_LINE_RUN`): its audit trail is the command line's. */
@Global()
@Module({ providers: [{ provide: MCP_COMMAND_LINE_RUN, useValue: true }], exports: [MCP_COMMAND_LINE_RUN] })
class McpCommandLineRun {}

/** The application's module, run as one command. */
function commandLineRunOf(module: Type | DynamicModule): DynamicModule {
  @Module({})
  class McpCommandLineApplication {}
  return { module: McpCommandLineApplication, imports: [McpCommandLineRun, module] };
}

/** Writes why a command failed on stderr; returns its exit code. */
function reportFailure(io: CliIo, error: unknown): CliExitCode {
  if (error instanceof CliFailure) {
    io.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof CliUsageError) {
    io.stderr.write(`${error.message}\n`);
    return CliExitCode.usage;
  }
  if (error instanceof McpInvocationError) {
    io.stderr.write(`${error.outcome === 'cancelled' ? 'Cancelled.' : error.message}\n`);
    return failureExitCode(error.outcome);
  }
  io.stderr.write(`Failed: ${(error as Error)?.message ?? String(error)}\n`);
  return CliExitCode.toolError;
}
