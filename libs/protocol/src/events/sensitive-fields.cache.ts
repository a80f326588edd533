import type { RegisteredTool } from '#libs/catalog';
import { sensitiveFieldsOf, type SensitiveFields } from '#libs/security';

const cache = new WeakMap<RegisteredTool, SensitiveFields>();

/** The argument fields a tool's input schema marks sensitive, read once per tool. */
export function sensitiveFieldsOfTool(tool: RegisteredTool | undefined): SensitiveFields | undefined {
  if (!tool) return undefined;
  let fields = cache.get(tool);
  if (!fields) {
    fields = sensitiveFieldsOf(tool.definition.inputSchema);
    cache.set(tool, fields);
  }
  return fields;
}
