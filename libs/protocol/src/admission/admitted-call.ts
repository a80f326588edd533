import type { McpCallKind } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import type { CheckedArguments, InvalidArguments } from '#libs/invocation';
import type { RequestNote } from '../events/request-note';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';

/**
 * A call of a catalog entry the host admitted (`CallAdmission.admit`): the request, the way back
 * to its client, its note, and the entry with its arguments. What runs it — the call scope, or a
 * task runner — takes it whole.
 */
export interface AdmittedCall<T extends RegisteredHandler = RegisteredHandler> {
  readonly request: McpRequest;
  readonly reply: ReplyChannel;
  readonly note: RequestNote;
  readonly kind: McpCallKind;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  readonly entry: T;
  /** The arguments it runs with: as sent (a resource's template variables), redacted by a guardrail, or as checked. */
  readonly args: unknown;
  /** What the check of its arguments against the entry's schema gave (a tool's), when the admission ran one. */
  readonly checked?: CheckedArguments | InvalidArguments;
}
