import type { RemoteRequestFailure } from '../execution/remote-request.error';

const UNANSWERED: Record<RemoteRequestFailure, (timeoutMs: number) => string> = {
  timeout: (ms) => `did not answer within ${ms} ms`,
  unreachable: () => 'could not be reached',
  redirect: () => 'redirected the request where the host does not follow',
  too_large: () => 'answered more than the host accepts',
};

/**
 * Messages of the external REST APIs' tools. What the caller reads names the API and what
 * happened, never its URL or credentials; the log has the detail.
 */
export const RestApiMessages = {
  unanswered: (api: string, failure: RemoteRequestFailure, timeoutMs: number) =>
    `The REST API ${api} ${UNANSWERED[failure](timeoutMs)}; the operation may be retried later.`,
  credentialsRefused: (api: string) =>
    `The REST API ${api} refused the host's credentials; an administrator must update them. Retrying will not help.`,
  callerRefused: (api: string) =>
    `The REST API ${api} refused the caller's identity (HTTP 401): the caller may not use it, or their connected account was revoked there.`,
  credentialsRefusedLog: (label: string) =>
    `${label} answered 401: the credentials configured in rest.apis were refused; update them`,
} as const;
