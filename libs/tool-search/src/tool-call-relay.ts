import { Inject } from '@nestjs/common';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpPrincipal, McpTransportKind } from '#libs/core';

/** How `call_tool` makes the call it relays: as its caller, and recorded as the call it is. */
export interface RelayedCallOptions {
  /** The caller of `call_tool`: the chosen tool is authorized, throttled and audited as theirs. */
  principal: McpPrincipal;
  /** `call_tool`'s own: cancelling it cancels the relayed call. */
  signal: AbortSignal;
  /** Set when the caller asked for progress: the relayed call's progress goes to the caller. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Asks the caller: the relayed tool's questions (a confirmation among them) reach the caller. */
  elicit: (request: ElicitRequest['params']) => Promise<ElicitResult>;
  /** What the caller can answer, so that the relayed tool asks only that. */
  clientCapabilities: Readonly<Record<string, unknown>>;
  /** The caller's surface, client and address, in the audit record and metrics of the relayed call. */
  transport: McpTransportKind;
  clientInfo: { name: string; version: string } | null;
  remoteAddress?: string;
}

/**
 * What tool search needs of the host to run the tool a model chose: one `tools/call` through
 * the host's own dispatcher and admission, as the caller. It is all tool search needs of the
 * transports: hosting binds it to `McpInvoker`, whose `send` fits as it is.
 * @internal
 */
export interface ToolCallRelay {
  /** @throws JsonRpcError when the host answers with a JSON-RPC error (an unknown or hidden tool, say) */
  send<T>(
    method: 'tools/call',
    params: { name: string; arguments: Record<string, unknown> },
    options: RelayedCallOptions,
  ): Promise<{ result: T }>;
}

/** Token of the `ToolCallRelay`. */
export const TOOL_CALL_RELAY = Symbol('MCP:TOOL_CALL_RELAY');

/** Injects the `ToolCallRelay`. */
export const InjectToolCallRelay = (): ParameterDecorator => Inject(TOOL_CALL_RELAY);
