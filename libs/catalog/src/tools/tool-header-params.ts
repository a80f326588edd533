import type { JsonSchemaObject } from '#libs/core';
import { CatalogMessages } from '../messages/catalog.messages';

/** A tool parameter mirrored into an `Mcp-Param-{header}` HTTP header (`x-mcp-header` in its schema). */
export interface ToolHeaderParam {
  /** The `{header}` of `Mcp-Param-{header}`, as declared. */
  readonly header: string;
  /** The chain of `properties` keys from the input schema's root to the parameter. */
  readonly path: readonly string[];
  /** The parameter's declared type: the only ones a header can carry. */
  readonly type: 'string' | 'integer' | 'boolean';
}

const KEYWORD = 'x-mcp-header';
/** An HTTP field-name token (RFC 9110 §5.1: `1*tchar`). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);
/** Keywords whose value maps names to schemas (their keys are names, not keywords). */
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Keywords whose values are data, not schemas. */
const DATA: ReadonlySet<string> = new Set(['const', 'default', 'enum', 'examples']);

type Report = (message: { problem: string; fix: string }) => void;

/**
 * The parameters of a tool's input schema marked `x-mcp-header`, checked against the spec's
 * constraints (2026-07-28 "Custom Headers from Tool Parameters"): a non-empty HTTP token, unique
 * regardless of case, on a `string`, `integer` or `boolean` property reached from the root
 * through `properties` only (not `items`, `anyOf`, `$ref`, …). Reports every violation: a client
 * would drop the whole tool from its list.
 */
export function toolHeaderParams(schema: JsonSchemaObject, report: Report): ToolHeaderParam[] {
  const params: ToolHeaderParam[] = [];
  const seen = new Map<string, string>();
  // `path`: the properties reaching the node from the root, while only `properties` led there.
  const visit = (node: unknown, path: string[] | undefined, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, undefined, `${pointer}/${index}`));
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const schemaNode = node as Record<string, unknown>;
    if (KEYWORD in schemaNode) {
      const header = schemaNode[KEYWORD];
      const where = path && path.length > 0 ? path.join('.') : undefined;
      if (!path || !where) report(CatalogMessages.headerUnreachable(pointer || '/'));
      else if (typeof header !== 'string' || !TOKEN.test(header)) report(CatalogMessages.headerNotToken(where, header));
      else if (!TYPES.has(schemaNode.type)) report(CatalogMessages.headerNotPrimitive(where, schemaNode.type));
      else if (seen.has(header.toLowerCase()))
        report(CatalogMessages.headerTwice(header, seen.get(header.toLowerCase())!, where));
      else {
        seen.set(header.toLowerCase(), where);
        params.push({ header, path, type: schemaNode.type as ToolHeaderParam['type'] });
      }
    }
    for (const [key, value] of Object.entries(schemaNode)) {
      if (key === KEYWORD || DATA.has(key)) continue;
      if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        // Only `properties` keeps a parameter reachable, and only from a reachable schema.
        for (const [name, child] of Object.entries(value))
          visit(child, key === 'properties' && path ? [...path, name] : undefined, `${pointer}/${key}/${name}`);
      } else visit(value, undefined, `${pointer}/${key}`);
    }
  };
  visit(schema, [], '');
  return params;
}
