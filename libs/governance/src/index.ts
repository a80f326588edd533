export {
  MCP_GOVERNANCE_OPTIONS,
  InjectGovernanceOptions,
  GOVERNANCE_OPTION_KEYS,
  resolveGovernanceOptions,
  policyDiagnostics,
  type McpGovernanceOptions,
  type GovernanceOptions,
} from './governance.options';
export { GOVERNANCE_PROVIDERS } from './governance.providers';
export { MCP_GOVERNANCE, InjectGovernance } from './governance.token';
export { PIN_POLICY_ID, McpGovernance } from './mcp-governance';
export type { GovernedCall, CallVerdict, PolicyReading, ResultVerdict, ListCaller } from './governance-verdicts';
export { McpPolicy, MCP_POLICIES_METADATA } from './policies/mcp-policy.decorator';
export { McpGovernanceGuard } from './http/mcp-governance.guard';
export { McpGovernanceInterceptor } from './http/mcp-governance.interceptor';
export type {
  McpPolicyDefinition,
  McpPolicyScope,
  McpPolicyStage,
  McpPolicyOrigin,
} from './policies/mcp-policy.interface';
export type { PolicyRefusal } from './policies/policy-set';
export type {
  McpDetector,
  McpGuardrailRule,
  McpGuardrailAction,
  McpGuardrailOptions,
} from './guardrails/mcp-detector.interface';
export { BUILTIN_DETECTORS, luhnValid, ibanValid } from './guardrails/builtin-detectors';
export {
  MCP_POLICY_STORE,
  InjectPolicyStore,
  InProcessPolicyStore,
  type GovernancePolicyStore,
  type PolicyReplacement,
} from './store/policy-store';
export { McpPolicyTester, type PolicyTestCall, type PolicyTestDecision } from './tester/mcp-policy-tester';
export {
  resolvePinOption,
  type McpPinOption,
  type McpNewEntries,
  type McpPinningOptions,
  type PinScope,
  type PinningOptions,
} from './pins/pin.options';
export { CatalogPins, type ListedDefinition, type PinReview, type PinDecisionOutcome } from './pins/catalog-pins';
export {
  fingerprintOf,
  pinnedDefinitionOf,
  changesOf,
  pinId,
  type CatalogPin,
  type PinnedDefinition,
  type PinnedVersion,
  type PinChange,
  type PinKind,
  type PinOrigin,
} from './pins/catalog-pin';
export { InMemoryCatalogPinStore, type CatalogPinStore } from './pins/catalog-pin.store';
export { FileCatalogPinStore } from './pins/file-catalog-pin.store';
export { instructionFlagsOf, type InstructionFlag } from './pins/instruction-flags';
export { MCP_PIN_CHANGES, InjectPinChanges, PINS_DOCUMENT, type PinChangeSignal } from './pins/pin-change-signal';
