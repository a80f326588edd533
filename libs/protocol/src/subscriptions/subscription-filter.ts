import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';

/**
 * What a `subscriptions/listen` request opts in to (the spec's `SubscriptionFilter`), and what
 * the acknowledgement agrees to deliver. Fields an extension serves (the tasks extension's
 * `taskIds`) sit beside the standard ones.
 */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed` */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed` */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed` */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs */
  resourceSubscriptions?: string[];
  readonly [extension: string]: unknown;
}

/** The list-changed fields of the filter, by the list they watch. */
export const LIST_FLAGS = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
} as const;

export type ListName = keyof typeof LIST_FLAGS;

function invalid(problem: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `subscriptions/listen: ${problem}`);
}

/**
 * Reads `params.notifications` of a `subscriptions/listen` request: an object whose standard
 * fields have their spec types; other fields are kept for the extensions that serve them.
 * @throws JsonRpcError `-32602` naming the field that is wrong
 */
export function readSubscriptionFilter(params: Record<string, unknown>): SubscriptionFilter {
  const filter = params.notifications;
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw invalid('"notifications" must be an object naming what to receive, e.g. { "toolsListChanged": true }');
  const fields = filter as Record<string, unknown>;
  for (const flag of Object.values(LIST_FLAGS)) {
    if (fields[flag] !== undefined && typeof fields[flag] !== 'boolean')
      throw invalid(`"notifications.${flag}" must be true or false`);
  }
  const uris = fields.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string' && uri !== '')))
    throw invalid('"notifications.resourceSubscriptions" must be an array of resource URIs');
  return fields as SubscriptionFilter;
}
