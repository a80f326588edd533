/**
 * The common shapes of policy conditions compiled to plain JavaScript, so that a call whose
 * policies hold costs no CEL interpretation (and no conversion of its arguments to CEL values):
 * a path into `principal`, `client`, `transport`, `entry` or `args` compared with a literal or
 * another path (`==`, `!=`, `<`, `<=`, `>`, `>=`), `in` a list, `has()`, `size()`,
 * `startsWith` / `endsWith` / `contains`, and `&&`, `||`, `!` of these.
 *
 * The fast path answers in three values: `true` and `false` exactly as CEL would, and `UNKNOWN`
 * for everything it does not decide itself — a type CEL would compare in its own way (a string
 * with a number, a list with a string), a field that is missing (a CEL error), an integer beyond
 * 2^53 against a double. A condition is allowed by the fast path only when it answers `true`;
 * otherwise the CEL interpreter decides (and says why): CEL's answer is always the one that
 * counts, the fast path only skips it when it would have said `true`. A condition with any other
 * shape (a macro, a ternary, a function it does not know) is not compiled: CEL runs it.
 */

/** Not decided here: CEL's interpreter decides. */
export const UNKNOWN: unique symbol = Symbol('unknown');
type Unknown = typeof UNKNOWN;
type Tri = boolean | Unknown;

/** The bindings as plain values, as `celValueOf` would convert them (see `policy-bindings.ts`). */
export type PlainBindings = Record<string, unknown>;

/** A compiled condition: `true` exactly when CEL would answer `true`, otherwise `false` or `UNKNOWN`. */
export type FastCondition = (bindings: PlainBindings) => Tri;

type Value = (bindings: PlainBindings) => unknown;

/** Deeper paths than this are left to CEL (`celValueOf` turns values below depth 32 into null). */
const MAX_PATH = 30;
/** Integers CEL and JavaScript compare with doubles alike (beyond, CEL converts the integer to a double). */
const EXACT = 2n ** 53n;
const SURROGATE = /[\uD800-\uDFFF]/;

interface Node {
  readonly exprKind: { readonly case: string; readonly value: unknown };
}

/** Compiles a parsed CEL expression (`parse(condition).expr`), or `undefined` for a shape it leaves to CEL. */
export function compileFastCondition(expr: unknown, variables: readonly string[]): FastCondition | undefined {
  const value = compile(expr as Node, variables, 0);
  if (!value) return undefined;
  return (bindings) => {
    const result = value(bindings);
    return typeof result === 'boolean' ? result : UNKNOWN;
  };
}

function compile(node: Node, variables: readonly string[], depth: number): Value | undefined {
  const { case: kind, value } = node.exprKind;
  switch (kind) {
    case 'identExpr': {
      const name = (value as { name: string }).name;
      if (!variables.includes(name)) return undefined;
      return (bindings) => (bindings[name] === undefined ? UNKNOWN : bindings[name]);
    }
    case 'selectExpr': {
      const { operand, field, testOnly } = value as { operand: Node; field: string; testOnly: boolean };
      if (depth > MAX_PATH) return undefined;
      const of = compile(operand, variables, depth + 1);
      if (!of) return undefined;
      return testOnly ? (bindings) => has(of(bindings), field) : (bindings) => fieldOf(of(bindings), field);
    }
    case 'constExpr':
      return constant((value as { constantKind: { case: string; value: unknown } }).constantKind);
    case 'listExpr': {
      const { elements, optionalIndices } = value as { elements: Node[]; optionalIndices?: number[] };
      if (optionalIndices && optionalIndices.length > 0) return undefined;
      const items = elements.map((element) => compile(element, variables, depth + 1));
      if (items.some((item) => !item)) return undefined;
      return (bindings) => items.map((item) => item!(bindings));
    }
    case 'callExpr':
      return call(value as { function: string; args: Node[]; target?: Node }, variables, depth);
    default:
      return undefined;
  }
}

function constant(kind: { case: string; value: unknown }): Value | undefined {
  switch (kind.case) {
    case 'int64Value':
    case 'doubleValue':
    case 'stringValue':
    case 'boolValue': {
      const literal = kind.value;
      return () => literal;
    }
    case 'nullValue':
      return () => null;
    default:
      return undefined;
  }
}

function call(
  { function: name, args, target }: { function: string; args: Node[]; target?: Node },
  variables: readonly string[],
  depth: number,
): Value | undefined {
  const parts = (target ? [target, ...args] : args).map((arg) => compile(arg, variables, depth + 1));
  if (parts.some((part) => !part)) return undefined;
  const [a, b] = parts as Value[];
  switch (parts.length === 1 ? name : `${name}/${parts.length}`) {
    case '!_':
      return (bindings) => not(a(bindings));
    case '_&&_/2':
      return (bindings) => and(a(bindings), b(bindings));
    case '_||_/2':
      return (bindings) => or(a(bindings), b(bindings));
    case '_==_/2':
      return (bindings) => equal(a(bindings), b(bindings));
    case '_!=_/2':
      return (bindings) => not(equal(a(bindings), b(bindings)));
    case '_<_/2':
      return (bindings) => order(a(bindings), b(bindings), (x) => x < 0);
    case '_<=_/2':
      return (bindings) => order(a(bindings), b(bindings), (x) => x <= 0);
    case '_>_/2':
      return (bindings) => order(a(bindings), b(bindings), (x) => x > 0);
    case '_>=_/2':
      return (bindings) => order(a(bindings), b(bindings), (x) => x >= 0);
    case '@in/2':
      return (bindings) => within(a(bindings), b(bindings));
    case 'size':
      return (bindings) => sizeOf(a(bindings));
    case '_[_]/2':
      return (bindings) => indexed(a(bindings), b(bindings));
    case 'startsWith/2':
      return (bindings) => strings(a(bindings), b(bindings), (s, t) => s.startsWith(t));
    case 'endsWith/2':
      return (bindings) => strings(a(bindings), b(bindings), (s, t) => s.endsWith(t));
    case 'contains/2':
      return (bindings) => strings(a(bindings), b(bindings), (s, t) => s.includes(t));
    default:
      return undefined;
  }
}

/** A JS object CEL sees as a map (`celValueOf`: anything but null, a list, a Date). */
function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A field as `celValueOf` keeps it: own, enumerable, neither undefined nor a function. */
function present(map: Record<string, unknown>, field: string): boolean {
  if (!Object.prototype.propertyIsEnumerable.call(map, field)) return false;
  const item = map[field];
  return item !== undefined && typeof item !== 'function';
}

/** A value as CEL holds it: what `celValueOf` makes null is null, a Date its ISO text. */
function normal(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  return value instanceof Date ? value.toISOString() : value;
}

function fieldOf(map: unknown, field: string): unknown {
  if (!isMap(map) || !present(map, field)) return UNKNOWN;
  return normal(map[field]);
}

function has(map: unknown, field: string): Tri {
  return isMap(map) ? present(map, field) : UNKNOWN;
}

function not(value: unknown): Tri {
  return typeof value === 'boolean' ? !value : UNKNOWN;
}

/** CEL's `&&`: false if either side is false (whatever the other), true if both are. */
function and(a: unknown, b: unknown): Tri {
  if (a === false || b === false) return false;
  return a === true && b === true ? true : UNKNOWN;
}

/** CEL's `||`: true if either side is true (whatever the other), false if both are. */
function or(a: unknown, b: unknown): Tri {
  if (a === true || b === true) return true;
  return a === false && b === false ? false : UNKNOWN;
}

/** A double and an integer as CEL compares them, or `undefined` when only CEL can say. */
function numbers(a: unknown, b: unknown): [number, number] | [bigint, bigint] | undefined {
  const inRange = (n: bigint) => n <= EXACT && n >= -EXACT;
  if (typeof a === 'number' && typeof b === 'number') return [a, b];
  if (typeof a === 'bigint' && typeof b === 'bigint') return [a, b];
  if (typeof a === 'number' && typeof b === 'bigint') return inRange(b) ? [a, Number(b)] : undefined;
  if (typeof a === 'bigint' && typeof b === 'number') return inRange(a) ? [Number(a), b] : undefined;
  return undefined;
}

/** What CEL's heterogeneous equality tells apart: values of two different kinds are never equal. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  const type = typeof value;
  return type === 'bigint' ? 'number' : type === 'object' ? 'map' : type;
}

function equal(a: unknown, b: unknown): Tri {
  if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
  // Strings with surrogates: CEL's UTF-8 may make two lone ones the same; left to it.
  if (typeof a === 'string' && typeof b === 'string')
    return a === b ? true : SURROGATE.test(a) && SURROGATE.test(b) ? UNKNOWN : false;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b;
  if (a === null && b === null) return true;
  const pair = numbers(a, b);
  // NaN: CEL and JavaScript both say unequal.
  if (pair) return pair[0] === pair[1];
  // A string and a number, a list and a string…: unequal (a list with a list, a map with a map: CEL compares them).
  const kind = kindOf(a);
  return kind !== kindOf(b) && kind !== 'symbol' ? false : UNKNOWN;
}

function order(a: unknown, b: unknown, holds: (comparison: number) => boolean): Tri {
  const pair = numbers(a, b);
  if (pair) {
    const [x, y] = pair;
    if (typeof x === 'number' && (Number.isNaN(x) || Number.isNaN(y as number))) return UNKNOWN;
    return holds(x < y ? -1 : x > y ? 1 : 0);
  }
  // Code-unit order is code-point order without surrogates (CEL orders by code point).
  if (typeof a === 'string' && typeof b === 'string' && !SURROGATE.test(a) && !SURROGATE.test(b))
    return holds(a < b ? -1 : a > b ? 1 : 0);
  return UNKNOWN;
}

function within(item: unknown, container: unknown): Tri {
  if (item === UNKNOWN) return UNKNOWN;
  if (Array.isArray(container)) {
    let result: Tri = false;
    for (const element of container) {
      const same = equal(item, normal(element));
      if (same === true) return true;
      if (same === UNKNOWN) result = UNKNOWN;
    }
    return result;
  }
  if (isMap(container) && typeof item === 'string') return present(container, item);
  return UNKNOWN;
}

function sizeOf(value: unknown): bigint | Unknown {
  if (typeof value === 'string') {
    if (SURROGATE.test(value)) return UNKNOWN;
    let count = 0;
    // CEL counts code points.
    for (const _ of value) count++;
    return BigInt(count);
  }
  if (Array.isArray(value)) return BigInt(value.length);
  if (isMap(value)) return BigInt(Object.keys(value).filter((key) => present(value, key)).length);
  return UNKNOWN;
}

function indexed(container: unknown, index: unknown): unknown {
  if (isMap(container) && typeof index === 'string')
    return present(container, index) ? normal(container[index]) : UNKNOWN;
  if (Array.isArray(container) && typeof index === 'bigint' && index >= 0n && index < BigInt(container.length))
    return normal(container[Number(index)]);
  return UNKNOWN;
}

function strings(a: unknown, b: unknown, test: (s: string, t: string) => boolean): Tri {
  return typeof a === 'string' && typeof b === 'string' && !SURROGATE.test(a) && !SURROGATE.test(b)
    ? test(a, b)
    : UNKNOWN;
}
