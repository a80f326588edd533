import type { PipeTransform, Type } from '@nestjs/common';
import { ModuleRef, type ModulesContainer } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA, type McpDiagnostic } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';

/** The parameter metadata of a handler with every pipe class replaced by an instance. */
export const MCP_RESOLVED_PARAM_ARGS_METADATA = 'mcp:param-args:resolved';

type ParamMetadata = Record<string, { index: number; data?: unknown; pipes?: (Type<PipeTransform> | PipeTransform)[] }>;

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

  /** The metadata key the pipeline of `ref` reads its parameters from (resolving pipe classes first, once). */
  async resolve(ref: RegisteredHandler): Promise<string> {
    const owner = ownerOf(ref);
    if (!owner) return MCP_PARAM_ARGS_METADATA;
    const done = this.resolved.get(owner);
    if (done?.has(ref.methodName)) return MCP_RESOLVED_PARAM_ARGS_METADATA;
    const metadata = Reflect.getOwnMetadata(MCP_PARAM_ARGS_METADATA, owner, ref.methodName) as ParamMetadata;
    const moduleRef = this.moduleRefOf(ref);
    const entries = await Promise.all(
      Object.entries(metadata).map(async ([key, param]) => [key, { ...param, pipes: await Promise.all((param.pipes ?? []).map((pipe) => instanceOf(pipe, moduleRef))) }] as const),
    );
    Reflect.defineMetadata(MCP_RESOLVED_PARAM_ARGS_METADATA, Object.fromEntries(entries), owner, ref.methodName);
    if (done) done.add(ref.methodName);
    else this.resolved.set(owner, new Set([ref.methodName]));
    return MCP_RESOLVED_PARAM_ARGS_METADATA;
  }

  /** Resolves the pipes of every handler, reporting each one that cannot be made. */
  async resolveAll(refs: readonly RegisteredHandler[]): Promise<McpDiagnostic[]> {
    const diagnostics: McpDiagnostic[] = [];
    for (const ref of refs) {
      await this.resolve(ref).catch((error: unknown) =>
        diagnostics.push({
          where: ref.where,
          problem: `a pipe of its parameters cannot be created: ${(error as Error).message}`,
          fix: 'register the pipe class as a provider of a module the app imports, or pass an instance (new MyPipe(...))',
        }),
      );
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
async function instanceOf(pipe: Type<PipeTransform> | PipeTransform, moduleRef: ModuleRef): Promise<PipeTransform> {
  if (typeof pipe !== 'function') return pipe;
  try {
    return moduleRef.get(pipe, { strict: false });
  } catch {
    return moduleRef.create(pipe);
  }
}

/** The class whose own metadata holds the handler's parameters (the one that declared the method). */
function ownerOf(ref: RegisteredHandler): object | undefined {
  for (let type: object | null = ref.hostClass; type && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    if (Reflect.hasOwnMetadata(MCP_PARAM_ARGS_METADATA, type, ref.methodName)) return type;
  }
  return undefined;
}
