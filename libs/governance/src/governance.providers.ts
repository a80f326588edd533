import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { McpCluster } from '#libs/core';
import { AuditTrail } from '#libs/security';
import { MCP_GOVERNANCE_OPTIONS, type GovernanceOptions } from './governance.options';
import { McpGovernance } from './mcp-governance';
import { ClusterPolicyStore } from './store/cluster-policy-store';
import { InProcessPolicyStore, MCP_POLICY_STORE, type GovernancePolicyStore } from './store/policy-store';

/**
 * Governance's providers. With the `governance` option off, `McpGovernance` is `undefined`: the
 * engine asks it nothing. The policy store is chosen once: the cluster's when replicas share
 * state, else in process.
 */
export const GOVERNANCE_PROVIDERS: Provider[] = [
  {
    provide: MCP_POLICY_STORE,
    useFactory: (cluster?: McpCluster): GovernancePolicyStore =>
      cluster?.enabled ? new ClusterPolicyStore(cluster) : new InProcessPolicyStore(),
    inject: [{ token: McpCluster, optional: true }],
  },
  {
    provide: McpGovernance,
    useFactory: (
      options: GovernanceOptions | undefined,
      tools: ToolRegistry,
      prompts: PromptRegistry,
      resources: ResourceRegistry,
      store: GovernancePolicyStore,
      trail?: AuditTrail,
    ) => (options ? new McpGovernance(options, tools, prompts, resources, store, trail) : undefined),
    inject: [
      MCP_GOVERNANCE_OPTIONS,
      ToolRegistry,
      PromptRegistry,
      ResourceRegistry,
      MCP_POLICY_STORE,
      { token: AuditTrail, optional: true },
    ],
  },
];
