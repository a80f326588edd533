import type { McpToolAnnotations } from '#libs/core';
import type { RestConfirmOptions } from '../options/rest-confirm.options';
import { operationLabel, type RestDiagnostic } from '../openapi/rest-diagnostic';
import type { RestMethod, RestOperation } from '../openapi/rest-operation';
import { selectOperations } from '../openapi/route-selection';

const WRITES: ReadonlySet<RestMethod> = new Set(['post', 'put', 'patch', 'delete']);

/** Whether an operation changes something (POST, PUT, PATCH, DELETE): HTTP's non-safe methods. */
export function isWrite(operation: Pick<RestOperation, 'method'>): boolean {
  return WRITES.has(operation.method);
}

/** What is decided for one operation: its tool's `confirm` (`undefined`: the host's own policy). */
export interface WriteConfirmation {
  readonly confirm: boolean | string | undefined;
  /** A write that runs without asking, and nothing said it should. */
  readonly undecided: boolean;
}

/**
 * Decides, once at start-up, whether each REST-derived tool has a person confirm its calls:
 * the operation's own word (`@McpExpose({ confirm })`), else the `ask` and `skip` rules, else
 * the `writes` policy over its method and final annotations. The confirmation gate then holds
 * the call as it holds any tool with `confirm`: asked in the client, or an approval request.
 */
export class WriteConfirmations {
  private readonly asked: ReadonlySet<RestOperation>;
  private readonly skipped: ReadonlySet<RestOperation>;
  private readonly undecided: RestOperation[] = [];
  /** Rules of `ask` / `skip` that match no exposed operation, for a warning. */
  readonly unmatched: readonly { kind: string; value: string; list: 'ask' | 'skip' }[];

  constructor(
    private readonly options: RestConfirmOptions,
    operations: readonly RestOperation[],
  ) {
    const ask = options.ask ? selectOperations(operations, options.ask) : undefined;
    const skip = options.skip ? selectOperations(operations, options.skip) : undefined;
    this.asked = new Set(ask?.selected);
    this.skipped = new Set(skip?.selected);
    this.unmatched = [
      ...(ask?.unmatched ?? []).map(({ kind, value }) => ({ kind, value, list: 'ask' as const })),
      ...(skip?.unmatched ?? []).map(({ kind, value }) => ({ kind, value, list: 'skip' as const })),
    ];
  }

  /**
   * @param own the route's `@McpExpose({ confirm })`, when it says
   * @param annotations the tool's final annotations (the operation's, then the overrides)
   */
  decide(operation: RestOperation, annotations: McpToolAnnotations, own?: boolean | string): WriteConfirmation {
    if (own !== undefined) return { confirm: own, undecided: false };
    if (this.asked.has(operation)) return { confirm: true, undecided: false };
    // Decided not to ask, as `@McpExpose({ confirm: false })` decides: the host's confirmDestructive too.
    if (this.skipped.has(operation)) return { confirm: false, undecided: false };
    if (!isWrite(operation)) return { confirm: undefined, undecided: false };
    const { writes, writesDecided } = this.options;
    const asks = writes === 'writes' || (writes === 'destructive' && annotations.destructiveHint === true);
    if (asks) return { confirm: true, undecided: false };
    if (!writesDecided) this.undecided.push(operation);
    return { confirm: undefined, undecided: !writesDecided };
  }

  /**
   * One diagnostic naming every write that runs without asking and that nothing decided, with
   * the fixes; a warning, or an error under `undecided: 'error'`. `undefined` when there is none.
   * @param where the option to name (`rest.confirm`, `rest.apis[0].confirm`)
   * @param routeFix how a route itself decides (only controller routes have `@McpExpose`)
   */
  report(where: string, routeFix?: string): RestDiagnostic | undefined {
    if (this.undecided.length === 0) return undefined;
    const listed = this.undecided.map(operationLabel).join(', ');
    const example = this.undecided[0].operationId ?? this.undecided[0].path;
    const rule = this.undecided[0].operationId ? `{ operationIds: ['${example}'] }` : `{ paths: ['${example}'] }`;
    return {
      severity: this.options.undecided === 'error' ? 'error' : 'warning',
      where,
      problem:
        `${this.undecided.length} exposed write(s) run without a person's confirmation, and nothing decided so: ${listed}. ` +
        'An agent calling them changes data at once, even where the same action done by an MCP tool is held for approval',
      fix:
        `decide each: ${routeFix ? `${routeFix}, or ` : ''}${where}: { ask: ${rule} } to confirm it, ` +
        `or { skip: ${rule} } to let it run; or ${where}: 'writes' (every write asks) or 'destructive' (only DELETE and operations marked destructive)`,
    };
  }

  /** Warnings for `ask` / `skip` rules that match no exposed operation (a mistyped id or path). */
  unmatchedRules(where: string): RestDiagnostic[] {
    return this.unmatched.map(({ kind, value, list }) => ({
      severity: 'warning' as const,
      where: `${where}.${list}.${kind}`,
      problem: `"${value}" matches no exposed operation`,
      fix: 'check the spelling against the operations exposed (rules match the exposed ones only)',
    }));
  }
}
