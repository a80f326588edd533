import { Injectable } from '@nestjs/common';
import type { McpUnknownArguments } from '#libs/core';
import type { SecretRedactor } from '#libs/security';

/** How approval requests of confirmed calls behave (the hosting module's `approvals` option). */
export interface ApprovalSettings {
  /** A request waits this long for a decision, then expires. */
  ttlMs: number;
  /** A call whose user was sent to the approval page waits this long for the decision before it answers "pending". */
  waitMs: number;
  /**
   * The absolute URL of the approval page as the calling client reaches the host (from its
   * request headers), or `undefined` when there is none: then no one is sent there by URL.
   */
  pageOf: ((headers: Readonly<Record<string, string | string[] | undefined>>) => string | undefined) | undefined;
}

/**
 * Settings of the invocation pipeline that the hosting module decides from its options at
 * start-up (the invocation module has no options of its own).
 */
@Injectable()
export class InvocationSettings {
  /** Removes secrets from tool results and from logged errors; none when unset. */
  redactor: SecretRedactor | undefined;
  /** Arguments no schema declares: refused unless a tool says otherwise. */
  unknownArguments: McpUnknownArguments = 'refuse';
  /** Approval requests of confirmed calls. */
  approvals: ApprovalSettings = { ttlMs: 10 * 60_000, waitMs: 20_000, pageOf: undefined };
}
