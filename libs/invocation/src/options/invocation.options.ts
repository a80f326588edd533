import { Inject } from '@nestjs/common';
import { optionChecks, type McpUnknownArguments, type OptionReport } from '#libs/core';
import type { SecretRedactor } from '#libs/security';

/** How approval requests of confirmed calls behave (the module's `approvals` option). */
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

/** What the invocation pipeline needs of the module's options. */
export interface InvocationOptions {
  /**
   * Removes secrets from tool results (where they leave, `CallScope`: after governance saw them),
   * from error results and from logged errors; none when unset.
   */
  redactor: SecretRedactor | undefined;
  /** Arguments no schema declares: refused unless a tool says otherwise. */
  unknownArguments: McpUnknownArguments;
  /** Approval requests of confirmed calls. */
  approvals: ApprovalSettings;
}

/** Token of the resolved `InvocationOptions`. */
export const MCP_INVOCATION_OPTIONS = Symbol('MCP:INVOCATION_OPTIONS');

/** Injects the `InvocationOptions`. */
export const InjectInvocationOptions = (): ParameterDecorator => Inject(MCP_INVOCATION_OPTIONS);

/** The options of `McpModule` this slice reads (of `approvals`: `ttlMs` and `waitMs`). */
export const INVOCATION_OPTION_KEYS = ['unknownArguments'] as const;
/** The keys of the `approvals` option this slice reads. */
export const INVOCATION_APPROVAL_KEYS = ['ttlMs', 'waitMs'] as const;

/**
 * Validates the invocation options and merges their defaults. The redactor and the approval
 * page come from the libraries that own them (security, operations).
 * @param report called once per problem, with how to fix it
 */
export function resolveInvocationOptions(
  o: Record<string, unknown>,
  report: OptionReport,
  given: { redactor: SecretRedactor | undefined; approvalPage: ApprovalSettings['pageOf'] },
): InvocationOptions {
  const unknownArguments = o.unknownArguments ?? 'refuse';
  if (unknownArguments !== 'refuse' && unknownArguments !== 'strip' && unknownArguments !== 'allow') {
    report(
      'unknownArguments',
      `${JSON.stringify(unknownArguments)} is not a policy`,
      "use 'refuse' (the default), 'strip' or 'allow'",
    );
  }
  const approvals = (typeof o.approvals === 'object' && o.approvals !== null ? o.approvals : {}) as Record<
    string,
    unknown
  >;
  const check = optionChecks(approvals, report, 'approvals.');
  return {
    redactor: given.redactor,
    unknownArguments: unknownArguments as McpUnknownArguments,
    approvals: {
      ttlMs: check.integer('ttlMs', 10 * 60_000, 1_000),
      waitMs: check.integer('waitMs', 20_000, 0),
      pageOf: given.approvalPage,
    },
  };
}
