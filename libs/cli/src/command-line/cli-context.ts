import type { McpInvoker, McpInvokeOptions } from '#libs/hosting';
import type { McpApprovals } from '#libs/operations';
import type { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import type { CliIo } from './cli-io';
import type { CliGlobalOptions } from './global-options';

/** What a command runs with: the application's catalog and invoker, the terminal, the options. */
export interface CliContext {
  readonly program: string;
  readonly io: CliIo;
  readonly invoker: McpInvoker;
  readonly tools: ToolRegistry;
  readonly prompts: PromptRegistry;
  readonly resources: ResourceRegistry;
  /** The approval requests of calls that wait for a person (the `approvals` command). */
  readonly approvals: McpApprovals;
  readonly global: CliGlobalOptions;
  /** How every request is made: the credential, `transport: 'cli'`, the confirmation on the terminal. */
  readonly invoke: McpInvokeOptions;
}
