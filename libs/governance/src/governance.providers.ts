import type { Provider } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { AuditTrail } from '#libs/security';
import { MCP_GOVERNANCE_OPTIONS, type GovernanceOptions } from './governance.options';
import { McpGovernance } from './mcp-governance';
import { MCP_GOVERNANCE } from './governance.token';
import { CatalogPins } from './pins/catalog-pins';
import { MCP_PIN_CHANGES, type PinChangeSignal } from './pins/pin-change-signal';
import { MCP_POLICY_STORE, type GovernancePolicyStore } from './store/policy-store';

/**
 * Governance's providers. With the `governance` option off (and nothing declared with `pin`),
 * `McpGovernance` and `CatalogPins` are `undefined`: the engine asks them nothing. Its policy
 * store (`MCP_POLICY_STORE`) is a piece of the host's shared state: in process, or the cluster's
 * when replicas share state.
 */
export const GOVERNANCE_PROVIDERS: Provider[] = [
  {
    provide: CatalogPins,
    useFactory: (options: GovernanceOptions | undefined, trail?: AuditTrail, signal?: PinChangeSignal) =>
      options ? new CatalogPins(options.pinning, trail, signal) : undefined,
    inject: [MCP_GOVERNANCE_OPTIONS, { token: AuditTrail, optional: true }, { token: MCP_PIN_CHANGES, optional: true }],
  },
  {
    provide: McpGovernance,
    useFactory: (
      options: GovernanceOptions | undefined,
      tools: ToolRegistry,
      prompts: PromptRegistry,
      resources: ResourceRegistry,
      store: GovernancePolicyStore,
      pins: CatalogPins | undefined,
      trail: AuditTrail | undefined,
      modules: ModulesContainer,
    ) => (options ? new McpGovernance(options, tools, prompts, resources, store, pins, trail, modules) : undefined),
    inject: [
      MCP_GOVERNANCE_OPTIONS,
      ToolRegistry,
      PromptRegistry,
      ResourceRegistry,
      MCP_POLICY_STORE,
      CatalogPins,
      { token: AuditTrail, optional: true },
      ModulesContainer,
    ],
  },
  // The engine's way to it (see MCP_GOVERNANCE).
  { provide: MCP_GOVERNANCE, useExisting: McpGovernance },
];
