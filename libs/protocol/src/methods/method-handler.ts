import type { CallChannel } from '#libs/invocation';
import type { RequestNote } from '../events/request-note';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import type { McpEra, McpRequestMethod } from '../wire/mcp-method.table';

export type { McpRequest } from '../requests/mcp-request';
export type { ReplyChannel } from '../requests/reply-channel';

/**
 * Where a call's requests to the client (elicitation, sampling, roots) go when not on the
 * session's JSON-RPC channel: a 2026-07-28 request gathers them into an `InputRequiredResult`
 * (`InputRound`, opened by `CallScope.serve`), a task waits for `tasks/update`. The call's
 * `CallChannel` hands its `request` and `missingCapability` on to them, so they keep its contract.
 */
export type ClientInputs = Pick<CallChannel, 'request' | 'missingCapability'>;

/**
 * Answers one JSON-RPC method: resolves to the `result` as JSON text. `note` collects what the
 * audit trail and metrics need (the entry used, its arguments, why it failed); `reply` is the way
 * back to the client for what the method sends before its result.
 */
export type MethodHandler = (request: McpRequest, reply: ReplyChannel, note: RequestNote) => string | Promise<string>;

/**
 * A group of MCP methods (tools, prompts, …) the dispatcher routes to. Its keys are rows of the
 * method table (`mcp-method.table.ts`), so a misspelt method does not compile. A group answers a
 * method in every era the table gives it, or, with `era`, in that era alone (a method both eras
 * have and answer differently, as the tasks: each era's group answers its own).
 */
export interface McpMethods {
  readonly era?: McpEra;
  readonly methods: Readonly<Partial<Record<McpRequestMethod, MethodHandler>>>;
}

/**
 * The method groups the dispatcher routes to, provided by the module that assembles the host
 * (the prompts and resources features own theirs, and the engine does not depend on them).
 */
export const MCP_METHOD_GROUPS = Symbol('MCP:METHOD_GROUPS');

export const EMPTY_RESULT = '{}';
