import type { PipeTransform, Type } from '@nestjs/common';
import { ModuleRef, type ModulesContainer } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA, McpParamType, type McpDiagnostic } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import { InvocationDiagnostics } from './invocation.messages';

type Pipe = Type<PipeTransform> | PipeTransform;
type ParamMetadata = Record<string, { index: number; data?: unknown; pipes?: Pipe[] }>;

/** Hosts made in this process, each keeping its resolved parameters under a key of its own. */
let hosts = 0;

/** The decorator of each kind of parameter, for messages. */
const DECORATORS: Record<number, string> = {
  [McpParamType.ARGS]: 'McpArgs',
  [McpParamType.CONTEXT]: 'McpContext',
  [McpParamType.CALLER]: 'McpCaller',
};

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
  /**
   * The metadata key under which this host keeps a handler's parameters with their pipes made: a
   * key of its own, as another app in the process may host the same class with other providers.
   */
  private readonly resolvedKey = `mcp:param-args:resolved:${++hosts}`;
  private readonly resolutions = new WeakMap<RegisteredHandler, Promise<string>>();
  private readonly keys = new WeakMap<RegisteredHandler, string>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modules: ModulesContainer,
  ) {}

  /** The metadata key the pipeline of `ref` reads its parameters from, once `resolve` has found it. */
  keyOf(ref: RegisteredHandler): string | undefined {
    return this.keys.get(ref);
  }

  /**
   * Makes the pipe classes of `ref`'s parameters, once however many callers ask.
   * @returns the metadata key its pipeline reads its parameters from
   * @throws PipeResolutionError naming each pipe that cannot be made
   */
  resolve(ref: RegisteredHandler): Promise<string> {
    let resolution = this.resolutions.get(ref);
    if (!resolution) {
      resolution = this.make(ref).then((key) => (this.keys.set(ref, key), key));
      this.resolutions.set(ref, resolution);
    }
    return resolution;
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

  private async make(ref: RegisteredHandler): Promise<string> {
    const metadata: ParamMetadata = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, ref.hostClass, ref.methodName) ?? {};
    const params = Object.entries(metadata).sort(([, a], [, b]) => a.index - b.index);
    // Instances (or no pipes): Nest reads the decorators' own metadata as it is.
    if (!params.some(([, param]) => param.pipes?.some((pipe) => typeof pipe === 'function')))
      return MCP_PARAM_ARGS_METADATA;
    const moduleRef = this.moduleRefOf(ref);
    const made = await Promise.all(
      params.map(([, param]) => Promise.allSettled((param.pipes ?? []).map((pipe) => instanceOf(pipe, moduleRef)))),
    );
    const failures = params.flatMap(([key, param], i) =>
      made[i].flatMap((outcome, j) =>
        outcome.status === 'rejected' ? [diagnosticOf(ref, key, param, param.pipes![j], outcome.reason)] : [],
      ),
    );
    if (failures.length > 0) throw new PipeResolutionError(failures);
    const entries = params.map(([key, param], i) => [
      key,
      { ...param, pipes: made[i].map((outcome) => (outcome as PromiseFulfilledResult<PipeTransform>).value) },
    ]);
    // On the handler's class itself: Nest reads it from the instance's constructor.
    Reflect.defineMetadata(this.resolvedKey, Object.fromEntries(entries), ref.hostClass, ref.methodName);
    return this.resolvedKey;
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
function diagnosticOf(
  ref: RegisteredHandler,
  key: string,
  param: ParamMetadata[string],
  pipe: Pipe,
  error: unknown,
): McpDiagnostic {
  const call = { decorator: DECORATORS[Number(key.split(':')[0])] ?? 'McpArgs', data: param.data };
  // Nest's first line names the missing dependency and the module searched; the rest is general advice.
  const reason = ((error as Error)?.message ?? String(error)).split('\n')[0];
  return {
    where: ref.where,
    ...InvocationDiagnostics.pipeNotCreated((pipe as Type).name, param.index, call, ref.hostClass.name, reason),
  };
}
