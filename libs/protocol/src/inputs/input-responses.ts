/** The methods a call may send its client, as input requests of a 2026-07-28 request. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

const isFormValue = (value: unknown) =>
  typeof value === 'string' ||
  typeof value === 'number' ||
  typeof value === 'boolean' ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'));

const isContentBlock = (value: unknown) => isObject(value) && typeof value.type === 'string';

/** What an `ElicitResult` must be (schema 2026-07-28); `undefined` when it is one. */
function elicitProblem(value: Record<string, unknown>): string | undefined {
  if (!ACTIONS.has(value.action)) return '"action" must be "accept", "decline" or "cancel"';
  if (value.content === undefined) return undefined;
  if (!isObject(value.content)) return '"content" must be an object';
  const wrong = Object.keys(value.content).find(
    (name) => !isFormValue((value.content as Record<string, unknown>)[name]),
  );
  return wrong === undefined
    ? undefined
    : `"content.${wrong}" must be a string, a number, a boolean or a list of strings`;
}

/** What a `CreateMessageResult` must be; `undefined` when it is one. */
function samplingProblem(value: Record<string, unknown>): string | undefined {
  if (value.role !== 'assistant' && value.role !== 'user') return '"role" must be "assistant" or "user"';
  const content = value.content;
  if (!(Array.isArray(content) ? content.length > 0 && content.every(isContentBlock) : isContentBlock(content)))
    return '"content" must be a content block (an object with a "type") or a list of them';
  if (typeof value.model !== 'string') return '"model" must be a string';
  if (value.stopReason !== undefined && typeof value.stopReason !== 'string') return '"stopReason" must be a string';
  return undefined;
}

/** What a `ListRootsResult` must be; `undefined` when it is one. */
function rootsProblem(value: Record<string, unknown>): string | undefined {
  if (!Array.isArray(value.roots)) return '"roots" must be a list';
  const wrong = value.roots.findIndex(
    (root) =>
      !isObject(root) || typeof root.uri !== 'string' || (root.name !== undefined && typeof root.name !== 'string'),
  );
  return wrong < 0
    ? undefined
    : `"roots[${wrong}]" must be an object with a string "uri" (and an optional string "name")`;
}

/**
 * Why `value` is not the client's result of an input request of `method`, in words that name
 * the field; `undefined` when it is one. Fields the schema does not name are let through.
 */
export function answerProblem(method: InputMethod, value: unknown): string | undefined {
  if (!isObject(value)) return `must be an object (the client's result of ${method})`;
  switch (method) {
    case 'elicitation/create':
      return elicitProblem(value);
    case 'sampling/createMessage':
      return samplingProblem(value);
    case 'roots/list':
      return rootsProblem(value);
  }
}
