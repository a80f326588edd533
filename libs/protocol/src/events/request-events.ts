import { JsonRpcErrorCode, type McpTransportKind } from '#libs/core';
import { Injectable } from '@nestjs/common';
import type { AuditOutcome } from '#libs/security';
import { McpRequestObservers } from './request-observers';
import { RequestNote } from './request-note';

/**
 * Publishes every finished request, and every refusal made before any method ran, to the
 * request observers: metrics, dashboard statistics and the audit trail's recorder
 * (`AuditRecorder` in security/audit) all learn of requests here and nowhere else.
 */
@Injectable()
export class RequestEvents {
  constructor(private readonly observers: McpRequestObservers) {}

  finish(note: RequestNote): void {
    note.latencyMs = performance.now() - note.startedHr;
    // A round that asked its client for input is told with the retry that completes the call.
    if (note.continuedByRetry) return;
    // The note is the event: nothing more is allocated for the observers on the request's path.
    if (this.observers.size > 0) this.observers.observe(note);
  }

  /** Reports a request refused before any method ran (HTTP status as the code). */
  refusal({ outcome, status, message, transport, remoteAddress, principal, target, method }: RequestRefusal): void {
    const note = new RequestNote(method ?? null, undefined, transport, principal, undefined, undefined, remoteAddress);
    note.refusal = true;
    note.target = target;
    note.fail(outcome, status, message);
    note.latencyMs = performance.now() - note.startedHr;
    // Metrics count every refusal; the audit recorder sums up a flood of like ones.
    if (this.observers.size > 0) this.observers.observe(note);
  }
}

/** A request refused before any method ran, as `RequestEvents.refusal` reports it. */
export interface RequestRefusal {
  readonly outcome: AuditOutcome;
  /** The HTTP status it was answered with (the record's code). */
  readonly status: number;
  readonly message: string;
  readonly transport: McpTransportKind;
  readonly remoteAddress?: string;
  /** Who was refused, once known. */
  readonly principal?: string;
  /** What was refused when it was no MCP message (e.g. `admin API`). */
  readonly target?: string;
  /** What it asked for, when that is known before any method ran (an admin API action: `admin/oauth.revoke`). */
  readonly method?: string;
}

/** The outcome a JSON-RPC error code stands for, when the handler did not say more. */
export function outcomeOfCode(code: number): AuditOutcome {
  switch (code) {
    case JsonRpcErrorCode.INVALID_PARAMS:
    case JsonRpcErrorCode.INVALID_REQUEST:
    case JsonRpcErrorCode.PARSE_ERROR:
    case JsonRpcErrorCode.HEADER_MISMATCH:
    case JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY:
    case JsonRpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION:
      return 'invalid';
    case JsonRpcErrorCode.METHOD_NOT_FOUND:
    case JsonRpcErrorCode.RESOURCE_NOT_FOUND:
      return 'not_found';
    case JsonRpcErrorCode.THROTTLED:
      return 'throttled';
    default:
      return 'error';
  }
}

/** The outcome an HTTP refusal stands for. */
export function outcomeOfStatus(status: number): AuditOutcome {
  switch (status) {
    case 401:
      return 'unauthenticated';
    case 403:
      return 'denied';
    case 429:
      return 'throttled';
    case 413:
      return 'limited';
    case 404:
      return 'not_found';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 ? 'error' : 'invalid';
  }
}
