import type { RestOperation } from './rest-operation';

/** Which operations become tools: those matching any rule, minus those matching an `exclude` rule. */
export interface RouteSelectionRules {
  /** Operations carrying any of these tags. */
  readonly tags?: readonly string[];
  /**
   * Globs over the OpenAPI path, case-sensitive: `*` matches within one segment, `**` any number
   * of segments (none included, so `/api/tickets/**` selects `/api/tickets` too).
   */
  readonly paths?: readonly string[];
  readonly operationIds?: readonly string[];
  /** The same rules, taking operations out again. */
  readonly exclude?: Omit<RouteSelectionRules, 'exclude'>;
}

/** One rule as given, for reporting. */
export interface RouteSelectionRule {
  readonly kind: 'tags' | 'paths' | 'operationIds';
  readonly value: string;
  readonly exclude: boolean;
}

/** The operations selected (in their order), and the rules that matched no operation at all. */
export interface RouteSelectionResult {
  readonly selected: RestOperation[];
  readonly unmatched: RouteSelectionRule[];
}

/**
 * `/api/tickets/**` → a RegExp matching the path and every path below it; `*` → `[^/]*`.
 * Everything else is literal (`{id}` too: it matches the template as the document writes it).
 *
 * @example
 * ```ts
 * pathGlob('/api/tickets/*').test('/api/tickets/{id}'); // true
 * ```
 */
export function pathGlob(pattern: string): RegExp {
  let source = '';
  const segments = pattern.split('/');
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      // `/**` matches nothing or `/anything/below`; a leading `**/` any start.
      source += last ? '(?:/.*)?' : index === 0 ? '(?:.*/)?' : '(?:/[^]*)?/';
      return;
    }
    const literal = segment
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*');
    source += index === 0 || segments[index - 1] === '**' ? literal : `/${literal}`;
  });
  return new RegExp(`^${source}$`);
}

/**
 * The operations the rules select. No rule, no operation: exposure is opt-in. Rules that
 * select nothing are returned in `unmatched`, so start-up can warn about a mistyped tag or path.
 *
 * @example
 * ```ts
 * const { selected, unmatched } = selectOperations(operations, {
 *   paths: ['/api/tickets/**'],
 *   exclude: { operationIds: ['TicketsController_remove'] },
 * });
 * ```
 */
export function selectOperations(
  operations: readonly RestOperation[],
  rules: RouteSelectionRules = {},
): RouteSelectionResult {
  const include = rulesOf(rules, false);
  const exclude = rulesOf(rules.exclude ?? {}, true);
  const used = new Set<RouteSelectionRule>();
  const matching = (operation: RestOperation, list: readonly CompiledRule[]) => {
    let matched = false;
    for (const rule of list) {
      if (rule.test(operation)) {
        used.add(rule.rule);
        matched = true;
      }
    }
    return matched;
  };
  const selected = operations.filter((operation) => {
    const included = matching(operation, include);
    const excluded = matching(operation, exclude);
    return included && !excluded;
  });
  const unmatched = [...include, ...exclude].map((r) => r.rule).filter((rule) => !used.has(rule));
  return { selected, unmatched };
}

interface CompiledRule {
  readonly rule: RouteSelectionRule;
  readonly test: (operation: RestOperation) => boolean;
}

function rulesOf(rules: Omit<RouteSelectionRules, 'exclude'>, exclude: boolean): CompiledRule[] {
  const tags = (rules.tags ?? []).map((value) => ({
    rule: { kind: 'tags' as const, value, exclude },
    test: (operation: RestOperation) => operation.tags.includes(value),
  }));
  const paths = (rules.paths ?? []).map((value) => {
    const glob = pathGlob(value);
    return {
      rule: { kind: 'paths' as const, value, exclude },
      test: (operation: RestOperation) => glob.test(operation.path),
    };
  });
  const ids = (rules.operationIds ?? []).map((value) => ({
    rule: { kind: 'operationIds' as const, value, exclude },
    test: (operation: RestOperation) => operation.operationId === value,
  }));
  return [...tags, ...paths, ...ids];
}
