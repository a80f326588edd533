import type { McpDownstreamUse, McpTransportKind } from '#libs/core';
import type { SensitiveFields } from './sensitive-fields';

/**
 * What happened to a request, as recorded in the audit trail and counted by metrics:
 * - `ok`: served; `tool_error`: the tool ran and reported a business failure (`isError`);
 * - `error`: an internal failure (logged with a reference);
 * - `unauthenticated`, `denied` (authorization, including entries hidden from the caller),
 *   `throttled`, `invalid` (bad params or arguments), `limited` (request limits, body size,
 *   concurrency, session cap), `not_found`, `cancelled`, `timeout`, `unavailable` (the host or
 *   its audit trail could not take the call).
 */
/**
 * Every outcome a record may have: `ok`; the call's own failures (`tool_error`, `error`,
 * `timeout`); and each policy's refusal (`unauthenticated`, `denied`, `throttled`, `invalid`,
 * `limited`, `not_found`, `cancelled`, `unavailable`).
 * @example
 * AUDIT_OUTCOMES.includes(record.outcome); // true for every record of the trail
 */
export const AUDIT_OUTCOMES = [
  'ok',
  'tool_error',
  'error',
  'unauthenticated',
  'denied',
  'throttled',
  'invalid',
  'limited',
  'not_found',
  'cancelled',
  'timeout',
  'unavailable',
] as const;

/** How a request ended, as its audit record says (one of `AUDIT_OUTCOMES`). */
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * The facts of one audited request, as the host reports it (on the hot path: nothing computed
 * yet; `undefined` and `null` both mean "none").
 */
export interface AuditEntry {
  /** When the request arrived (ms since the epoch). */
  readonly startedAt: number;
  /** Who called (none when the request was refused before anyone was authenticated). */
  readonly principal?: string | null;
  readonly transport: McpTransportKind;
  readonly sessionId?: string | null;
  readonly client?: { name: string; version: string } | null;
  /** The MCP revision the request spoke (`2025-11-25`, `2026-07-28`, …); none for transport refusals. */
  readonly protocolVersion?: string;
  /** The JSON-RPC method (`tools/call`, …), or none for transport refusals with no message read. */
  readonly method: string | null;
  /** The tool or prompt name, the resource URI, or the task id. */
  readonly target?: string | null;
  /** The HTTP route behind the target, for a tool made from a REST route or an OpenAPI operation (`DELETE /api/tickets/{ticketId}`). */
  readonly route?: string;
  /** The identity the call used downstream (a gateway upstream, a `rest.apis` API), when it went there as someone. */
  readonly downstream?: McpDownstreamUse;
  /**
   * How the call came when only an extension could have made it: `view`, from an MCP Apps view;
   * or `route`, a plain HTTP request to one of the app's routes that governance decided on.
   */
  readonly origin?: string;
  /** The composed virtual server the request came through (its own path), when it came through one. */
  readonly server?: string;
  /** The arguments as sent; redacted and digested by the trail, off the hot path. */
  readonly arguments?: unknown;
  /** The fields of `arguments` to redact (from the entry's input schema). */
  readonly sensitive?: SensitiveFields;
  readonly outcome: AuditOutcome;
  /** The JSON-RPC error code, or the HTTP status of a transport refusal. */
  readonly errorCode?: number | null;
  /** What the client was told, for refusals and errors. */
  readonly error?: string | null;
  readonly latencyMs: number;
  /** W3C trace id of the request's span, when tracing is on or the client sent one. */
  readonly traceId?: string | null;
  readonly remoteAddress?: string | null;
  /** How many like refusals the record stands for, when it sums up a window of them. */
  readonly count?: number;
  /** What the governance policies and guardrails decided about the call (none when none applied). */
  readonly governance?: AuditGovernance;
}

/**
 * The governance of one call, as its audit record keeps it: the policies that allowed it, those
 * that refused it (or would have, in dry-run mode) with their reason, and what the guardrails
 * found — the kind and place of each finding, never the value.
 */
export interface AuditGovernance {
  /** Ids of the policies that were evaluated and held. */
  readonly allowed?: readonly string[];
  readonly refused?: readonly { policy: string; reason: string; dryRun?: true }[];
  readonly findings?: readonly GuardrailFinding[];
}

/** Something a guardrail found: which detector, in the arguments or the result, where, and what was done. */
export interface GuardrailFinding {
  readonly detector: string;
  readonly in: 'arguments' | 'result';
  /** JSON path of the string it was found in (`$.customer.email`). */
  readonly path: string;
  readonly action: 'block' | 'redact' | 'flag';
}

/** A record of the trail: what happened, its place in its chain and the hashes that link it. */
export interface AuditRecord {
  /** Unique record id (UUID). */
  id: string;
  /** ISO-8601 time the request arrived. */
  time: string;
  /** The chain this record belongs to (one per host instance: several replicas share a sink). */
  chain: string;
  /** Position in the chain, from 1. */
  seq: number;
  /** `hash` of the previous record of the chain (64 zeros for the first). */
  prevHash: string;
  principal: string | null;
  transport: McpTransportKind;
  sessionId: string | null;
  client: { name: string; version: string } | null;
  /** The MCP revision the request spoke; absent on transport refusals (and on records written before it was kept). */
  protocolVersion?: string;
  method: string | null;
  target: string | null;
  /** The HTTP route behind `target` (a tool made from a REST route); absent for every other entry. */
  route?: string;
  /** Who the call acted for downstream, who acted, and as whom the downstream saw it; absent when it went nowhere as someone. */
  downstream?: McpDownstreamUse;
  /** `view` for a call made from an MCP Apps view (an app-only tool), `route` for a plain HTTP request to a governed route (`method: 'http/route'`); absent for every other record. */
  origin?: string;
  /** The composed virtual server (docs/virtual-servers.md) the request came through; absent on the host's own endpoints. */
  server?: string;
  /** The arguments with fields marked sensitive replaced by `"[REDACTED]"` (`null`: none sent). */
  arguments: unknown;
  /** `sha256:<hex>` of the canonical JSON of the arguments as sent (sensitive fields included), or `null`. */
  argumentsDigest: string | null;
  outcome: AuditOutcome;
  errorCode: number | null;
  error: string | null;
  latencyMs: number;
  traceId: string | null;
  remoteAddress: string | null;
  /**
   * Present on a record that sums up repeated refusals: how many more refusals from the same
   * address, for the same reason, came in the window after the one recorded on its own.
   * Absent: the record stands for one request.
   */
  count?: number;
  /** What governance policies and guardrails decided (absent when none applied to the call). */
  governance?: AuditGovernance;
  /** SHA-256 (hex) of `prevHash` and the canonical JSON of every other field. */
  hash: string;
}
