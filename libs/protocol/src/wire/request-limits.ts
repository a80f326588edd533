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
  /** Longest resource URI (`params.uri` of reads and subscriptions, completion refs). @default 2_048 */
  maxUriLength: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  maxDepth: 32,
  maxStringLength: 100_000,
  maxArrayLength: 10_000,
  maxArguments: 100,
  maxUriLength: 2_048,
};

/**
 * Refuses `params` that exceed a limit with `-32602` naming the place and the limit. Walks
 * iteratively, so a hostile nesting depth cannot exhaust the stack.
 */
export function checkRequestLimits(params: Record<string, unknown>, limits: RequestLimits): void {
  const args = params.arguments;
  if (args && typeof args === 'object' && !Array.isArray(args) && Object.keys(args).length > limits.maxArguments) {
    refuse(`params.arguments has ${Object.keys(args).length} arguments; at most ${limits.maxArguments} are accepted`);
  }
  const uri = params.uri ?? (params.ref as { uri?: unknown } | undefined)?.uri;
  if (typeof uri === 'string' && uri.length > limits.maxUriLength) {
    refuse(
      `${params.uri === uri ? 'params.uri' : 'params.ref.uri'} is ${uri.length} characters long; URIs of at most ${limits.maxUriLength} are accepted`,
    );
  }
  // The common case allocates no paths: they are worked out only for a refusal.
  const values: unknown[] = [params];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength)
        refuse(
          `${pathTo(params, value)} is ${value.length} characters long; at most ${limits.maxStringLength} are accepted`,
        );
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= limits.maxDepth) refuse(`${pathTo(params, value)} is nested deeper than ${limits.maxDepth} levels`);
      if (Array.isArray(value)) {
        if (value.length > limits.maxArrayLength)
          refuse(`${pathTo(params, value)} has ${value.length} items; at most ${limits.maxArrayLength} are accepted`);
        for (const item of value) {
          values.push(item);
          depths.push(depth + 1);
        }
      } else {
        for (const key in value) {
          values.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
  }
}

/** The path of `target` inside `root` (breadth-first, so the shallowest occurrence). */
function pathTo(root: unknown, target: unknown): string {
  const queue: [unknown, string][] = [[root, 'params']];
  for (let index = 0; index < queue.length; index++) {
    const [value, path] = queue[index];
    if (value === target) return path;
    if (Array.isArray(value)) value.forEach((item, i) => queue.push([item, `${path}[${i}]`]));
    else if (typeof value === 'object' && value !== null)
      for (const key in value) queue.push([(value as Record<string, unknown>)[key], `${path}.${key}`]);
  }
  return 'params';
}

function refuse(message: string): never {
  throw new RequestLimitError(`Request too large: ${message}`);
}

/** A request over the host's limits (`-32602`), told apart from other invalid params in the audit trail. */
export class RequestLimitError extends JsonRpcError {
  constructor(message: string) {
    super(JsonRpcErrorCode.INVALID_PARAMS, message);
  }
}
