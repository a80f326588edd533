import type { PipeTransform, Type } from '@nestjs/common';
import { ModuleRef, type ModulesContainer } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA, McpParamType, type McpDiagnostic } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { InvocationDiagnostics } from './invocation.messages';

/** The parameter metadata of a handler with every pipe class replaced by an instance. */
export const MCP_RESOLVED_PARAM_ARGS_METADATA = 'mcp:param-args:resolved';

type Pipe = Type<PipeTransform> | PipeTransform;
type ParamMetadata = Record<string, { index: number; data?: unknown; pipes?: Pipe[] }>;

/** The decorator of each kind of parameter, for messages. */
const DECORATORS: Record<number, string> = { [McpParamType.ARGS]: 'McpArgs', [McpParamType.CONTEXT]: 'McpContext', [McpParamType.CALLER]: 'McpCaller' };

/** Every pipe class of a handler that could not be made, each with the diagnostic that says how to fix it. */
export class PipeResolutionError extends Error {
  constructor(readonly diagnostics: McpDiagnostic[]) {
    super(diagnostics.map((d) => `${d.where}: ${d.problem}`).join('\n'));
    this.name = 'PipeResolutionError';
  }
}

/**
 * Pipe classes on MCP parameters (`@McpArgs('id', ParseIntPipe)`), made instances as Nest does
 * for a controller's route parameters: the provider registered for the class when there is one,
 * else a new instance with its dependencies injected from the module that provides the handler's
 * class. Nest resolves classes only for route parameters it scanned itself, so without this a
 * class would be silently ignored.
 */
export class ParamPipes {
  private readonly resolved = new WeakMap<object, Set<string>>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modules: ModulesContainer,
  ) {}

  /**
   * The metadata key the pipeline of `ref` reads its parameters from (resolving pipe classes first, once).
   * @throws PipeResolutionError naming each pipe that cannot be made
   */
  async resolve(ref: RegisteredHandler): Promise<string> {
    const owner = ownerOf(ref);
    if (!owner) return MCP_PARAM_ARGS_METADATA;
    const done = this.resolved.get(owner);
    if (done?.has(ref.methodName)) return MCP_RESOLVED_PARAM_ARGS_METADATA;
    const metadata = Reflect.getOwnMetadata(MCP_PARAM_ARGS_METADATA, owner, ref.methodName) as ParamMetadata;
    const params = Object.entries(metadata).sort(([, a], [, b]) => a.index - b.index);
    const moduleRef = this.moduleRefOf(ref);
    const made = await Promise.all(params.map(([, param]) => Promise.allSettled((param.pipes ?? []).map((pipe) => instanceOf(pipe, moduleRef)))));
    const failures = params.flatMap(([key, param], i) =>
      made[i].flatMap((outcome, j) => (outcome.status === 'rejected' ? [diagnosticOf(ref, key, param, param.pipes![j], outcome.reason)] : [])),
    );
    if (failures.length > 0) throw new PipeResolutionError(failures);
    const entries = params.map(([key, param], i) => [key, { ...param, pipes: made[i].map((outcome) => (outcome as PromiseFulfilledResult<PipeTransform>).value) }]);
    Reflect.defineMetadata(MCP_RESOLVED_PARAM_ARGS_METADATA, Object.fromEntries(entries), owner, ref.methodName);
    if (done) done.add(ref.methodName);
    else this.resolved.set(owner, new Set([ref.methodName]));
    return MCP_RESOLVED_PARAM_ARGS_METADATA;
  }

  /** Resolves the pipes of every handler, reporting each one that cannot be made. */
  async resolveAll(refs: readonly RegisteredHandler[]): Promise<McpDiagnostic[]> {
    const diagnostics: McpDiagnostic[] = [];
    for (const ref of refs) {
      await this.resolve(ref).catch((error: unknown) => {
        if (!(error instanceof PipeResolutionError)) throw error;
        diagnostics.push(...error.diagnostics);
      });
    }
    return diagnostics;
  }

  /**
   * The `ModuleRef` of the module that provides the handler's class: a pipe class gets its
   * dependencies where the handler gets its own, as a route's pipe gets them from its
   * controller's module. Handlers no module provides (added through `McpCatalog`) use the host's.
   */
  private moduleRefOf(ref: RegisteredHandler): ModuleRef {
    for (const module of this.modules.values()) {
      for (const wrapper of module.providers.values()) {
        if (wrapper.metatype === ref.hostClass && (!ref.instance || wrapper.instance === ref.instance)) {
          return module.getProviderByKey(ModuleRef).instance as ModuleRef;
        }
      }
    }
    return this.moduleRef;
  }
}

/** The provider registered for a pipe class, or a new instance made in `moduleRef`'s module. */
async function instanceOf(pipe: Pipe, moduleRef: ModuleRef): Promise<PipeTransform> {
  if (typeof pipe !== 'function') return pipe;
  try {
    return moduleRef.get(pipe, { strict: false });
  } catch {
    return moduleRef.create(pipe);
  }
}

/** Which pipe of which parameter could not be made, why, and how to fix it. */
function diagnosticOf(ref: RegisteredHandler, key: string, param: ParamMetadata[string], pipe: Pipe, error: unknown): McpDiagnostic {
  const call = { decorator: DECORATORS[Number(key.split(':')[0])] ?? 'McpArgs', data: param.data };
  // Nest's first line names the missing dependency and the module searched; the rest is general advice.
  const reason = ((error as Error)?.message ?? String(error)).split('\n')[0];
  return { where: ref.where, ...InvocationDiagnostics.pipeNotCreated((pipe as Type).name, param.index, call, ref.hostClass.name, reason) };
}

/** The class whose own metadata holds the handler's parameters (the one that declared the method). */
function ownerOf(ref: RegisteredHandler): object | undefined {
  for (let type: object | null = ref.hostClass; type && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    if (Reflect.hasOwnMetadata(MCP_PARAM_ARGS_METADATA, type, ref.methodName)) return type;
  }
  return undefined;
}
