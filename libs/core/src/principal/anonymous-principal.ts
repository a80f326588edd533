import type { McpPrincipal } from '../interfaces/mcp-call-context.interface';

/**
 * The one anonymous principal: every caller when authentication is off (unless the options name
 * a fixed one), and the caller of a context no transport authenticated. Frozen, compared by identity.
 */
export const ANONYMOUS_PRINCIPAL: McpPrincipal = Object.freeze({
  id: 'anonymous',
  scopes: Object.freeze([]),
  roles: Object.freeze([]),
  claims: Object.freeze({}),
});
