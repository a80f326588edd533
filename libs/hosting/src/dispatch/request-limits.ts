import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';

/** Bounds on what a request may contain, checked before any handler runs. */
export interface RequestLimits {
  /** Deepest nesting of objects and arrays in `params`. @default 32 */
  maxDepth: number;
  /** Longest string anywhere in `params` (characters). @default 100_000 */
  maxStringLength: number;
  /** Longest array anywhere in `params`. @default 10_000 */
  maxArrayLength: number;
  /** Most keys in `params.arguments` (tool, prompt and completion arguments). @default 100 */
  maxArguments: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = { maxDepth: 32, maxStringLength: 100_000, maxArrayLength: 10_000, maxArguments: 100 };

/**
 * Refuses `params` that exceed a limit with `-32602` naming the place and the limit. Walks
 * iteratively, so a hostile nesting depth cannot exhaust the stack.
 */
export function checkRequestLimits(params: Record<string, unknown>, limits: RequestLimits): void {
  const args = params.arguments;
  if (args && typeof args === 'object' && !Array.isArray(args) && Object.keys(args).length > limits.maxArguments) {
    refuse(`params.arguments has ${Object.keys(args).length} arguments; at most ${limits.maxArguments} are accepted`);
  }
  const stack: [unknown, string, number][] = [[params, 'params', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength) refuse(`${path} is ${value.length} characters long; at most ${limits.maxStringLength} are accepted`);
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= limits.maxDepth) refuse(`${path} is nested deeper than ${limits.maxDepth} levels`);
      if (Array.isArray(value)) {
        if (value.length > limits.maxArrayLength) refuse(`${path} has ${value.length} items; at most ${limits.maxArrayLength} are accepted`);
        value.forEach((item, index) => stack.push([item, `${path}[${index}]`, depth + 1]));
      } else {
        for (const [key, item] of Object.entries(value)) stack.push([item, `${path}.${key}`, depth + 1]);
      }
    }
  }
}

function refuse(message: string): never {
  throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Request too large: ${message}`);
}
