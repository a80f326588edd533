/**
 * The SDK's runtime types module (its zod schemas and `McpError`), loaded on first use: a host
 * without upstreams never pays for it.
 */
export function sdkTypes(): typeof import('@modelcontextprotocol/sdk/types.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
}
