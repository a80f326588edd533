import type { RegisteredHandler, RegisteredPrompt, RegisteredTool } from '#libs/catalog';
import { sensitiveFieldsOf, type SensitiveFields } from '#libs/security';
import type { McpEntryKind } from '../events/mcp-request-event';

const cache = new WeakMap<RegisteredHandler, SensitiveFields>();

/**
 * The argument fields an entry's schema marks sensitive (a tool's input schema, a prompt's
 * argument DTO or zod schema), read once per entry. Resources have no argument schema.
 */
export function sensitiveFieldsOfEntry(
  kind: McpEntryKind,
  entry: RegisteredHandler | undefined,
): SensitiveFields | undefined {
  if (!entry || kind === 'resource') return undefined;
  let fields = cache.get(entry);
  if (!fields) {
    const schema =
      kind === 'tool' ? (entry as RegisteredTool).definition.inputSchema : (entry as RegisteredPrompt).argumentsSchema;
    fields = sensitiveFieldsOf(schema);
    cache.set(entry, fields);
  }
  return fields;
}
