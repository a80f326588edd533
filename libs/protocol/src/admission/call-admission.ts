import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCallKind } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { AuditTrail } from '#libs/security';
import { InjectGovernance, type McpGovernance } from '#libs/governance';
import type { RequestNote } from '../events/request-note';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import type { AdmittedCall } from './admitted-call';
import { AccessControl, AccessDeniedError } from './access-control';
import { sensitiveFieldsOfEntry } from './sensitive-fields.cache';

/** A call of a catalog entry, as its method group read it from the request. */
export interface CallRequest<T extends RegisteredHandler> {
  kind: McpCallKind;
  /** Tool or prompt name, or resource URI. */
  target: string;
  /** The entry, or `undefined` when the catalog has none by that name or URI. */
  entry: T | undefined;
  /** The arguments as sent (a resource's template variables). */
  args: unknown;
  /** The error a caller gets for an entry that does not exist (and for one hidden from them). */
  notFound: () => JsonRpcError;
}

const UNAUDITABLE =
  'Service unavailable: the audit trail cannot be written, so calls are refused until it can (audit policy fail-closed)';

/**
 * The one admission of every call of a tool, prompt or resource, in this order:
 * 1. the request's note names the entry and its arguments, with the fields to redact, for the
 *    audit trail (so even a refused call is recorded with what it asked for, redacted);
 * 2. an entry that does not exist, or that the access policy hides from this caller, or that is
 *    not for its client (an app-only tool, for a client that renders no views), gets the same
 *    "unknown" error (a hidden entry's existence is never revealed; audited as `denied`);
 * 3. the access policy's rule on the call itself (`authorizeCall`, with the arguments);
 * 4. governance (`McpGovernance`, with the `governance` option): a policy that does not read the
 *    arguments and refuses is answered as step 2 (the entry is not listed to that caller either);
 *    then the policies on the arguments, then the guardrails on them (which may redact them: the
 *    call runs with what they let through); each decision goes on the note for the audit trail;
 * 5. the audit gate: under a fail-closed trail that cannot write, nothing runs.
 * The invocation then applies, for tools, human confirmation (`ConfirmationGate`), and for every
 * kind Nest's guards, interceptors and pipes (`HandlerRunner`). docs/security.md shows the order.
 */
@Injectable()
export class CallAdmission {
  constructor(
    private readonly access: AccessControl,
    @Optional() private readonly trail?: AuditTrail,
    @Optional() @InjectGovernance() private readonly governance?: McpGovernance,
  ) {}

  /**
   * @returns the call, admitted for this caller: what runs it takes it whole
   * @throws JsonRpcError the not-found error, a `-32602` "not allowed", or a `-32603` "unavailable"
   */
  async admit<T extends RegisteredHandler>(
    call: CallRequest<T>,
    request: McpRequest,
    reply: ReplyChannel,
    note: RequestNote,
  ): Promise<AdmittedCall<T>> {
    const { kind, target, entry, args } = call;
    note.entry(kind, target, args, sensitiveFieldsOfEntry(kind, entry));
    note.route = entry?.route;
    if (entry) note.origin = this.access.originOf(entry, request.session);
    if (!entry || !this.access.allows(request.principal, entry, request.session)) {
      const notFound = call.notFound();
      throw entry ? new AccessDeniedError(notFound.code, notFound.message, notFound.data) : notFound;
    }
    if (this.access.authorizesCalls) await this.access.authorizeCall(request.principal, kind, target, args, entry);
    const admitted = this.governance ? this.govern(call, entry, request, note) : args;
    this.checkAuditGate(note);
    return { request, reply, note, kind, target, entry, args: admitted };
  }

  /** Step 4: the arguments the call runs with. @throws JsonRpcError as step 2, or a `-32602` "not allowed by policy" */
  private govern<T extends RegisteredHandler>(
    call: CallRequest<T>,
    entry: T,
    request: McpRequest,
    note: RequestNote,
  ): unknown {
    const verdict = this.governance!.admitCall({
      principal: request.principal,
      client: request.session.clientInfo,
      transport: request.transport,
      kind: call.kind,
      entry,
      args: call.args,
    });
    note.governance = verdict.audit;
    // What a guardrail found never reaches the trail, whatever the rule did with it.
    if (verdict.kind !== 'hidden' && verdict.recorded !== undefined) note.arguments = verdict.recorded;
    if (verdict.kind === 'allowed') return verdict.args;
    if (verdict.kind === 'hidden') {
      const notFound = call.notFound();
      throw new AccessDeniedError(notFound.code, notFound.message, notFound.data);
    }
    throw new AccessDeniedError(JsonRpcErrorCode.INVALID_PARAMS, verdict.message);
  }

  /**
   * Step 5 alone, for guarded requests that name no entry (task results).
   * @throws JsonRpcError `-32603` when the audit trail is fail-closed and cannot take the call
   */
  checkAuditGate(note: RequestNote): void {
    if (this.trail && !this.trail.admits()) {
      note.fail('unavailable', JsonRpcErrorCode.INTERNAL_ERROR, UNAUDITABLE);
      throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, UNAUDITABLE);
    }
  }
}
