import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCallKind } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { AuditTrail } from '#libs/security';
import { InjectGovernance, type CallVerdict, type GovernedCall, type McpGovernance } from '#libs/governance';
import { InvalidArguments, type CheckedArguments } from '#libs/invocation';
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
  /**
   * Checks the arguments against the entry's schema (types, required, undeclared) — a tool's
   * (`ToolInvoker.check`). Given, it runs before any policy reads them (step 4c), and the call goes
   * on with what it gave (its `checked`), invalid ones included: they are answered so.
   */
  check?: (entry: T, args: unknown) => CheckedArguments | InvalidArguments;
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
 * 4. governance (`McpGovernance`, with the `governance` option) and the arguments' check:
 *    a. a quarantined definition, then a policy that does not read the arguments and refuses,
 *       answered as step 2 (the entry is not listed to that caller either);
 *    b. the guardrails on the arguments as sent (which may block them, or redact them: what
 *       follows sees what they let through);
 *    c. the arguments checked against the entry's schema (a tool's: types, required fields,
 *       undeclared ones — `ToolInvoker.check`); invalid ones go no further than the answer that
 *       names them (no policy reads them: a typo is told as a typo, not as a refusal);
 *    d. the policies on the (checked) arguments;
 *    each decision goes on the note for the audit trail;
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
    let admitted: unknown;
    let checked: CheckedArguments | InvalidArguments | undefined;
    if (this.governance) [admitted, checked] = this.govern(call, entry, request, note);
    else if (call.check) admitted = checked = call.check(entry, args);
    else admitted = args;
    this.checkAuditGate(note);
    return { request, reply, note, kind, target, entry, args: admitted, checked };
  }

  /**
   * Step 4: the arguments the call runs with, and what their check gave.
   * @throws JsonRpcError as step 2, or a `-32602` "not allowed by policy" / "refused by guardrail"
   */
  private govern<T extends RegisteredHandler>(
    call: CallRequest<T>,
    entry: T,
    request: McpRequest,
    note: RequestNote,
  ): [unknown, CheckedArguments | InvalidArguments | undefined] {
    const governance = this.governance!;
    const governed: GovernedCall = {
      principal: request.principal,
      client: request.session.clientInfo,
      transport: request.transport,
      kind: call.kind,
      entry,
      args: call.args,
    };
    const screened = governance.screenCall(governed);
    if (screened && screened.kind !== 'allowed') return this.refuse(call, note, screened);
    const args = screened ? screened.args : call.args;
    const checked = call.check?.(entry, args);
    if (checked instanceof InvalidArguments) {
      // Answered as invalid by what runs the call: no policy decides on arguments that do not hold.
      if (screened) this.noteVerdict(note, screened);
      return [args, checked];
    }
    const verdict = governance.decideCall(governed, checked ?? args, screened);
    if (verdict.kind !== 'allowed') return this.refuse(call, note, verdict);
    this.noteVerdict(note, verdict);
    return [verdict.args, checked];
  }

  private noteVerdict(note: RequestNote, verdict: CallVerdict): void {
    note.governance = verdict.audit;
    // What a guardrail found never reaches the trail, whatever the rule did with it.
    if (verdict.kind !== 'hidden' && verdict.recorded !== undefined) note.arguments = verdict.recorded;
  }

  private refuse<T extends RegisteredHandler>(
    call: CallRequest<T>,
    note: RequestNote,
    verdict: CallVerdict & { kind: 'hidden' | 'refused' },
  ): never {
    this.noteVerdict(note, verdict);
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
