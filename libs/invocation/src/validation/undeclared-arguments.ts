import type { JsonSchemaObject, McpUnknownArguments } from '#libs/core';
import { resolveLocalRef } from './schema-ref';

/**
 * The arguments without what the schema does not declare, and (under `refuse`) one issue per
 * property taken out. `issues` is `undefined` when there is nothing to report.
 */
export type UndeclaredArgumentsCheck = (value: unknown) => { value: unknown; issues: string[] | undefined };

/**
 * What the schema says about the properties of one object (and of the objects inside it),
 * worked out once per tool: `undefined` where any property is accepted.
 */
interface ObjectPlan {
  /** The declared properties and the plan of each one's value (`null`: nothing to check inside). */
  declared: Map<string, ValuePlan | null> | undefined;
}
interface ValuePlan {
  object: ObjectPlan | undefined;
  /** The plan of array items. */
  items: ValuePlan | undefined;
}

/**
 * Refuses (or strips) the properties an argument object has that its input schema does not
 * declare, at every level the schema describes, whatever the schema came from (a DTO, zod or
 * JSON Schema: all three publish a JSON Schema). Without it, an undeclared `"id"` sent by a
 * model reaches the tool as if it were an argument (mass assignment).
 *
 * Objects whose schema accepts more on purpose (`additionalProperties` other than `false`,
 * `patternProperties`, `unevaluatedProperties`, or a choice between `anyOf`/`oneOf` shapes) are
 * left to the schema's own validator.
 *
 * What is taken out is always taken out, so that the schema's own validator can still report
 * every other problem of the same call at once.
 *
 * @returns `undefined` when the policy is `allow` or the schema declares nothing to check
 */
export function compileUndeclaredArguments(
  schema: JsonSchemaObject,
  policy: McpUnknownArguments,
): UndeclaredArgumentsCheck | undefined {
  if (policy === 'allow') return undefined;
  const plan = planOf(schema, schema, new Map());
  if (!plan) return undefined;
  return (value) => {
    const issues: string[] = [];
    const kept = walk(plan, value, '', policy, issues);
    return { value: kept, issues: issues.length > 0 ? issues : undefined };
  };
}

function walk(plan: ValuePlan, value: unknown, path: string, policy: McpUnknownArguments, issues: string[]): unknown {
  if (Array.isArray(value)) {
    if (!plan.items) return value;
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const kept = walk(plan.items, value[index], `${path}[${index}]`, policy, issues);
      if (kept !== value[index]) (copy ??= [...value])[index] = kept;
    }
    return copy ?? value;
  }
  const declared = plan.object?.declared;
  if (!declared || typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const field = (value as Record<string, unknown>)[key];
    if (!declared.has(key)) {
      if (policy === 'refuse') issues.push(`${path}${path ? '.' : ''}${key}: ${describeUndeclared(declared)}`);
      delete (copy ??= { ...(value as Record<string, unknown>) })[key];
      continue;
    }
    const inner = declared.get(key);
    if (!inner) continue;
    const kept = walk(inner, field, `${path}${path ? '.' : ''}${key}`, policy, issues);
    if (kept !== field) (copy ??= { ...(value as Record<string, unknown>) })[key] = kept;
  }
  return copy ?? value;
}

function describeUndeclared(declared: Map<string, unknown>): string {
  return declared.size === 0
    ? 'is not an accepted argument (none are accepted here)'
    : `is not an accepted argument (accepted: ${[...declared.keys()].join(', ')})`;
}

/** The plan of a value's schema, or `null` when nothing inside it is checked. Cycles through `$ref` are followed once. */
function planOf(schema: unknown, root: JsonSchemaObject, seen: Map<object, ValuePlan | null>): ValuePlan | null {
  const node = resolveLocalRef(schema, root);
  if (typeof node !== 'object' || node === null) return null;
  if (seen.has(node)) return seen.get(node)!;
  // Registered before its children, so a recursive schema ends here the second time.
  const plan: ValuePlan = { object: undefined, items: undefined };
  seen.set(node, plan);
  const object = objectPlanOf(node as Record<string, unknown>, root, seen);
  const itemsSchema = (node as { items?: unknown }).items;
  const items =
    itemsSchema && typeof itemsSchema === 'object' && !Array.isArray(itemsSchema)
      ? planOf(itemsSchema, root, seen)
      : null;
  if (!object && !items) {
    seen.set(node, null);
    return null;
  }
  plan.object = object;
  plan.items = items ?? undefined;
  return plan;
}

function objectPlanOf(
  node: Record<string, unknown>,
  root: JsonSchemaObject,
  seen: Map<object, ValuePlan | null>,
): ObjectPlan | undefined {
  const parts = [
    node,
    ...(Array.isArray(node.allOf)
      ? node.allOf.map((part) => resolveLocalRef(part, root) as Record<string, unknown>)
      : []),
  ];
  const opensUp = parts.some(
    (part) =>
      typeof part !== 'object' ||
      part === null ||
      (part.additionalProperties !== undefined && part.additionalProperties !== false) ||
      part.patternProperties !== undefined ||
      (part.unevaluatedProperties !== undefined && part.unevaluatedProperties !== false) ||
      part.anyOf !== undefined ||
      part.oneOf !== undefined,
  );
  const describesProperties = parts.some((part) => typeof part.properties === 'object' && part.properties !== null);
  if (opensUp || !describesProperties) return undefined;
  const declared = new Map<string, ValuePlan | null>();
  for (const part of parts) {
    for (const [name, property] of Object.entries((part.properties ?? {}) as Record<string, unknown>)) {
      declared.set(name, planOf(property, root, seen));
    }
  }
  return { declared };
}
