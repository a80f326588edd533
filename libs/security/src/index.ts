export { Authenticator } from './auth/authenticator';
export { remoteKeySet } from './auth/remote-key-set';
export type { AuthResult, AuthRefusal } from './auth/auth-result';
export type { McpAuthOptions, McpApiKey, McpApiKeyAuth, McpOAuthAuth, McpNoAuth } from './auth/auth-options.interface';
export { hashApiKey, keyDigest, sameDigest, storedDigest } from './auth/api-key';
export { checkAuthOptions } from './auth/auth-options.resolver';
export { ClaimsMapper, checkClaimsMapping, type McpClaimsMapping, type McpClaimRule } from './auth/claims-mapping';
export { MCP_LOCAL_TOKEN_KEYS, InjectLocalTokenKeys, type LocalTokenKeys } from './auth/local-token-keys';
export { RequireScopes, Roles } from './authz/authorization.decorators';
export {
  ScopeAndRolePolicy,
  MCP_ACCESS_POLICY,
  InjectAccessPolicy,
  type McpAccessPolicy,
  type AccessRequirements,
  type McpCallRequest,
} from './authz/access-policy';
export { McpThrottlerGuard, McpThrottledException } from './throttling/mcp-throttler.guard';
export { SecretRedactor, DEFAULT_SECRET_PATTERNS, REDACTED } from './redaction/secret-redactor';
export { FixedWindowThrottlerStorage } from './throttling/fixed-window.storage';
export { RedactingConsoleLogger } from './redaction/redacting-console.logger';
export type { AuditOutcome, AuditEntry, AuditRecord, AuditGovernance, GuardrailFinding } from './audit/audit-record';
export { AUDIT_OUTCOMES } from './audit/audit-record';
export { MCP_AUDIT_SINK, InjectAuditSink, type AuditSink, type AuditChainTail } from './audit/audit-sink';
export {
  canonicalJson,
  hashRecord,
  verifyChain,
  GENESIS_HASH,
  type ChainVerification,
  type ChainVerificationOptions,
} from './audit/audit-chain';
export { AuditRecorder, type AuditableEvent } from './audit/audit-recorder';
export {
  AuditTrail,
  type AuditTrailSettings,
  type AuditTrailHealth,
  type AuditQuery,
  type AuditFailurePolicy,
} from './audit/audit-trail';
export {
  JsonlAuditSink,
  readTrail,
  trailFiles,
  type JsonlAuditSinkOptions,
  type JsonlLocation,
} from './audit/jsonl-audit.sink';
export { AuditForwarder, type AuditForwardHealth, type AuditForwarderSettings } from './audit/audit-forwarder';
export { SyslogAuditSink, type SyslogAuditSinkOptions } from './audit/syslog-audit.sink';
export {
  WebhookAuditSink,
  signAuditWebhook,
  AUDIT_WEBHOOK_SIGNATURE_HEADER,
  type WebhookAuditSinkOptions,
} from './audit/webhook-audit.sink';
export { OtlpLogsAuditSink, type OtlpLogsAuditSinkOptions } from './audit/otlp-logs-audit.sink';
export { AuditSinkOptionsError } from './audit/sink-options.error';
export { sensitiveFieldsOf, redactSensitive, type SensitiveFields } from './audit/sensitive-fields';
export {
  resolveAuditOptions,
  type AuditTrailParts,
  type McpAuditOptions,
  type ResolvedAuditOptions,
} from './audit/audit-options';
export { MCP_COMMAND_LINE_RUN } from './audit/command-line-run';
export { AuthFailureLimiter } from './auth/auth-failure.limiter';
export {
  API_SECURITY_HEADERS,
  API_SECURITY_HEADER_LIST,
  PAGE_SECURITY_HEADERS,
  SSE_SECURITY_HEADERS,
} from './http/security-headers';
export {
  checkOriginAndHost,
  type HttpRequestTarget,
  type OriginHostOptions,
  type HttpRefusal,
} from './http/origin-host.policy';
export { AddressRanges } from './http/address-ranges';
export { ClientAddresses, resolveTrustProxy, type McpTrustProxy, type AddressedRequest } from './http/client-addresses';
export {
  MCP_SECURITY_OPTIONS,
  InjectSecurityOptions,
  SECURITY_OPTION_KEYS,
  resolveSecurityOptions,
  type SecurityOptions,
} from './security.options';
export { SECURITY_PROVIDERS } from './security.providers';
export {
  classifyAddress,
  type AddressClass,
  type AddressClassification,
  type EmbeddingForm,
} from './outbound/address-class';
export {
  OutboundPolicy,
  portOf,
  type OutboundPolicyOptions,
  type OutboundRefusal,
  type OutboundResolver,
} from './outbound/outbound-policy';
export { OutboundPolicies, isHostOrAddress } from './outbound/outbound-policies';
export { OutboundError, type OutboundFailure } from './outbound/outbound.error';
export { guardedAgent, guardedConnector, guardedLookup, literalRefusal } from './outbound/outbound-connector';
export { tokenRequest, tokenRefusal, type TokenAnswer } from './outbound/token-request';
export { outboundFetch, outboundFetcher, guardedFetch, type OutboundRequestOptions } from './outbound/outbound-fetch';
