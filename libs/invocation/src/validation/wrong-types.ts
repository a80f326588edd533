import type { JsonSchemaObject } from '#libs/core';
import { resolveLocalRef } from './schema-ref';

/**
 * Finds the values whose JSON type is not the one the schema declares, by path (`limit`,
 * `address.city`, `lines[0].sku`). A validator that reports every failed constraint of a value
 * of the wrong type ("must not be greater than 100; must be an integer") misleads a model into
 * fixing the wrong thing: the type error alone says what to change.
 */
export function findWrongTypes(schema: JsonSchemaObject, value: unknown): Map<string, string> {
  const found = new Map<string, string>();
  walk(schema, schema, value, '', found);
  return found;
}

function walk(schema: unknown, root: JsonSchemaObject, value: unknown, path: string, found: Map<string, string>): void {
  const node = resolveLocalRef(schema, root) as Record<string, unknown> | undefined;
  if (typeof node !== 'object' || node === null) return;
  const types =
    typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : undefined;
  if (types && !types.some((type) => isOfType(value, type))) {
    found.set(path, `${path || '(arguments)'}: must be ${types.map(withArticle).join(' or ')}, not ${describe(value)}`);
    return;
  }
  for (const part of Array.isArray(node.allOf) ? node.allOf : []) walk(part, root, value, path, found);
  if (Array.isArray(value)) {
    if (node.items && typeof node.items === 'object' && !Array.isArray(node.items))
      value.forEach((item, index) => walk(node.items, root, item, `${path}[${index}]`, found));
    return;
  }
  if (typeof value !== 'object' || value === null || typeof node.properties !== 'object' || node.properties === null)
    return;
  for (const [name, property] of Object.entries(node.properties as Record<string, unknown>)) {
    if (Object.prototype.hasOwnProperty.call(value, name))
      walk(property, root, (value as Record<string, unknown>)[name], path ? `${path}.${name}` : name, found);
  }
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

const withArticle = (type: string) =>
  type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : type === 'null' ? 'null' : `a ${type}`;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
