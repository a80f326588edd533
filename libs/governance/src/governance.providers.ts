import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { AuditTrail } from '#libs/security';
import { MCP_GOVERNANCE_OPTIONS, type GovernanceOptions } from './governance.options';
import { McpGovernance } from './mcp-governance';
import { MCP_POLICY_STORE, type GovernancePolicyStore } from './store/policy-store';

/**
 * Governance's providers. With the `governance` option off, `McpGovernance` is `undefined`: the
 * engine asks it nothing. Its policy store (`MCP_POLICY_STORE`) is a piece of the host's shared
 * state: in process, or the cluster's when replicas share state.
 */
export const GOVERNANCE_PROVIDERS: Provider[] = [
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
