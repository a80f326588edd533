import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { AuditTrail } from '#libs/security';
import { catalogEntryOf } from '../stats/catalog-entry';
import { HostState } from '#libs/protocol';
import { MCP_OPERATIONS_OPTIONS, type OperationsOptions } from '../options/operations.options';
import { SessionStore } from '#libs/protocol';
import { McpMetrics } from './mcp-metrics';
import { McpRequestObservers } from '#libs/protocol';
import { MCP_APPROVAL_LEDGER, type ApprovalLedger } from '#libs/invocation';

/**
 * `McpMetrics`, part of `McpModule`: it always exists (inject it to add metrics of your own); it
 * counts requests only while the `metrics` option is on, and loads prom-client only when used.
 */
export const METRICS_PROVIDER: Provider = {
  provide: McpMetrics,
  useFactory: (
    options: OperationsOptions,
    observers: McpRequestObservers,
    state: HostState,
    sessions: SessionStore,
    tools: ToolRegistry,
    prompts: PromptRegistry,
    resources: ResourceRegistry,
    audit: AuditTrail | undefined,
    approvals: ApprovalLedger | undefined,
  ) =>
    new McpMetrics({
      entryOf: catalogEntryOf(tools, prompts, resources),
      inFlight: () => state.inFlight,
      sessions: () => sessions.liveCount,
      audit: audit && (() => audit.health()),
      // Every replica reads the one ledger of a cluster: the rules take the max, not the sum.
      approvalsPending:
        approvals && (async () => (await approvals.all()).filter((approval) => approval.status === 'pending').length),
      observers: options.metrics ? observers : undefined,
      processMetrics: options.metrics !== undefined,
      replica: options.replica,
    }),
  inject: [
    MCP_OPERATIONS_OPTIONS,
    McpRequestObservers,
    HostState,
    SessionStore,
    ToolRegistry,
    PromptRegistry,
    ResourceRegistry,
    { token: AuditTrail, optional: true },
    { token: MCP_APPROVAL_LEDGER, optional: true },
  ],
};
