import type { McpPolicyDefinition } from './mcp-policy.interface';

/** Metadata key of the policies declared on a provider or one of its methods. */
export const MCP_POLICIES_METADATA = 'mcp:policies';

/**
 * Declares policies beside the code they govern: on a method, they apply to the tool, prompt or
 * resource it serves; on a class, to every entry of the provider. Validated with the module's at
 * start-up (every error at once, with its place); `appliesTo` is implied by where it sits.
 *
 * @example
 * ```ts
 * @McpPolicy({
 *   id: 'urgent-needs-lead',
 *   condition: "args.priority != 'urgent' || 'lead' in principal.roles",
 *   reason: 'only a team lead may open an urgent ticket',
 * })
 * @McpTool({ description: 'Opens a ticket' })
 * createTicket(@McpArgs() args: CreateTicketDto) { … }
 * ```
 */
export function McpPolicy(...policies: Omit<McpPolicyDefinition, 'appliesTo'>[]): ClassDecorator & MethodDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const holder = (descriptor ? descriptor.value : target) as object;
    const given = (Reflect.getOwnMetadata(MCP_POLICIES_METADATA, holder) as McpPolicyDefinition[] | undefined) ?? [];
    Reflect.defineMetadata(MCP_POLICIES_METADATA, [...policies, ...given], holder);
  };
}

/** The policies `@McpPolicy` declared on a method (its function) or a class. */
export function policiesOn(target: unknown): McpPolicyDefinition[] {
  if ((typeof target !== 'object' && typeof target !== 'function') || target === null) return [];
  return (Reflect.getOwnMetadata(MCP_POLICIES_METADATA, target) as McpPolicyDefinition[] | undefined) ?? [];
}
