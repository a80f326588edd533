import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { AuditTrail, type AuditOutcome } from '#libs/security';
import { McpRequestObservers } from './request-observers';
import { RequestNote } from './request-note';

/** Requests recorded even when they succeed; any request that fails is recorded too. */
const AUDITED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'tools/call',
  'tasks/run',
  'prompts/get',
  'resources/read',
  'resources/subscribe',
  'tasks/get',
  'tasks/result',
  'tasks/cancel',
  'tasks/list',
]);

/** Requests that run catalog code or reach task results: refused under a fail-closed trail that cannot write. */
const GUARDED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read', 'tasks/result']);

/**
 * Reports every finished request to the observers (metrics, dashboard) and to the audit trail,
 * and keeps calls from running unaudited when the trail is fail-closed and cannot write.
 */
@Injectable()
export class RequestTelemetry {
  constructor(
    private readonly observers: McpRequestObservers,
    @Optional() private readonly trail?: AuditTrail,
  ) {}

  /**
   * @throws JsonRpcError `-32603` when the audit trail is fail-closed and cannot take the call
   */
  admit(note: RequestNote): void {
    if (this.trail && note.method !== null && GUARDED_METHODS.has(note.method) && !this.trail.admits()) {
      note.fail('unavailable', JsonRpcErrorCode.INTERNAL_ERROR, UNAUDITABLE);
      throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, UNAUDITABLE);
    }
  }

  finish(note: RequestNote): void {
    note.latencyMs = performance.now() - note.startedHr;
    if (this.observers.size > 0) this.observers.observe(note);
    if (!this.trail || (note.outcome === 'ok' && (note.method === null || !AUDITED_METHODS.has(note.method)))) return;
    // The note is the entry: nothing more is allocated for the trail on the request's path.
    this.trail.record(note);
  }

  /**
   * Records a request refused before any method ran (HTTP status as the code).
   * @param target what was refused when it was no MCP message (e.g. `admin API`)
   */
  refusal(outcome: AuditOutcome, status: number, message: string, transport: 'http' | 'stdio', remoteAddress: string | undefined, principal?: string, target?: string): void {
    const note = new RequestNote(null, transport, principal, undefined, undefined, remoteAddress);
    note.target = target;
    note.fail(outcome, status, message);
    note.latencyMs = performance.now() - note.startedHr;
    // Metrics count every refusal; the trail sums up a flood of like ones (see AuditTrail.recordRefusal).
    if (this.observers.size > 0) this.observers.observe(note);
    this.trail?.recordRefusal(note);
  }
}

const UNAUDITABLE = 'Service unavailable: the audit trail cannot be written, so calls are refused until it can (audit policy fail-closed)';

/** The outcome a JSON-RPC error code stands for, when the handler did not say more. */
export function outcomeOfCode(code: number): AuditOutcome {
  switch (code) {
    case JsonRpcErrorCode.INVALID_PARAMS:
    case JsonRpcErrorCode.INVALID_REQUEST:
    case JsonRpcErrorCode.PARSE_ERROR:
      return 'invalid';
    case JsonRpcErrorCode.METHOD_NOT_FOUND:
    case JsonRpcErrorCode.RESOURCE_NOT_FOUND:
      return 'not_found';
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
