import type { McpClientRequestOptions } from 'nest-mcp-host';

// What the 2026-07-28 fixtures need from the public API that it does not offer yet. Each helper
// is written against the option the engine is expected to add, so the fixtures read as they will
// once it lands; then these helpers give way to the plain calls. See SCENARIOS-2026.md.

/**
 * Names the request a call sends to the client. For a 2026-07-28 client the host turns
 * `ctx.elicit()`, `ctx.sample()` and `ctx.roots()` into an `InputRequiredResult`, and the suite
 * checks the keys of its `inputRequests` by name (`user_name`, `capital_question`, …); the retry
 * answers under the same key. Other eras ignore it.
 *
 * needs: `McpClientRequestOptions.key?: string` (the `inputRequests` key of this request).
 */
export function keyed(key: string, options?: McpClientRequestOptions): McpClientRequestOptions {
  const keyedOptions: McpClientRequestOptions & { key: string } = { ...options, key };
  return keyedOptions;
}
