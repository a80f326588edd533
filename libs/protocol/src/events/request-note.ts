import type { McpDownstreamUse, McpTransportKind } from '#libs/core';
import type { AuditGovernance, AuditOutcome, SensitiveFields } from '#libs/security';
import type { McpEntryKind, McpRequestEvent } from './mcp-request-event';
import type { McpMethodTraits } from '../wire/mcp-method.table';

/**
 * What the host learns about one request while serving it: the method handlers fill in the
 * target and arguments, the dispatcher the outcome and latency. It is the event observers see.
 */
export class RequestNote implements McpRequestEvent {
  entryKind: McpEntryKind | undefined = undefined;
  target: string | undefined = undefined;
  /** The HTTP route behind the entry, when it was made from one (see `RegisteredHandler.route`). */
  route: string | undefined = undefined;
  /** The identity the call used downstream, when it went there as someone (see `recordDownstream`). */
  downstream: McpDownstreamUse | undefined = undefined;
  /** How the call came, when only an extension could have made it (`view`: from an MCP Apps view). */
  origin: string | undefined = undefined;
  /** The composed virtual server the request came through (its path), when it came through one. */
  server: string | undefined = undefined;
  outcome: AuditOutcome = 'ok';
  errorCode: number | undefined = undefined;
  error: string | undefined = undefined;
  latencyMs = 0;
  /** The arguments as sent, for the audit trail (`undefined`: none). */
  arguments: unknown = undefined;
  sensitive: SensitiveFields | undefined = undefined;
  /** What governance policies and guardrails decided about the call (`McpGovernance`). */
  governance: AuditGovernance | undefined = undefined;
  traceId: string | undefined = undefined;
  readonly startedAt = Date.now();
  readonly startedHr = performance.now();

  constructor(
    readonly method: string | null,
    /** The method's row in the method table (`undefined`: a method the host does not answer). */
    readonly traits: McpMethodTraits | undefined,
    readonly transport: McpTransportKind,
    readonly principal: string | undefined,
    readonly sessionId: string | undefined,
    /** Who the client says it is (`initialize` sets it on its own note: the session learns it there). */
    public client: { name: string; version: string } | undefined,
    readonly remoteAddress: string | undefined,
    /** The MCP revision the request speaks (its session's, or its `_meta`'s). */
    readonly protocolVersion?: string,
  ) {}

  /** Recorded in the audit trail whatever its outcome (else only when it fails). */
  get audited(): boolean {
    return this.traits?.audited === true;
  }

  /** Names the catalog entry the request used. */
  entry(kind: McpEntryKind, target: string, args?: unknown, sensitive?: SensitiveFields): void {
    this.entryKind = kind;
    this.target = target;
    this.arguments = args;
    this.sensitive = sensitive;
  }

  /** Refused before any method ran (see `RequestEvents.refusal`). */
  refusal = false;

  /** The client cancelled the request (`notifications/cancelled`): no response is sent, as the spec asks. */
  withdrawn = false;

  /** Records that the client cancelled the request, whatever the call did after. */
  cancelledByClient(reason: string): void {
    this.outcome = 'cancelled';
    this.errorCode = undefined;
    this.error = `Cancelled by the client: ${reason}`;
    this.withdrawn = true;
  }

  /**
   * Answered with an `InputRequiredResult` (2026-07-28): the call goes on in the client's retry,
   * so this round is no request of its own for the observers. The audit trail and the metrics
   * account for the call once, as they do for a 2025 call that asked its client mid-way.
   */
  continuedByRetry = false;

  fail(outcome: AuditOutcome, errorCode: number | undefined, error: string | undefined): void {
    if (this.outcome === 'ok') this.outcome = outcome;
    this.errorCode = errorCode;
    this.error = error;
  }
}
