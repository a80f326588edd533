import type { PipeTransform, Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA, type McpDiagnostic } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';

/** The parameter metadata of a handler with every pipe class replaced by an instance. */
export const MCP_RESOLVED_PARAM_ARGS_METADATA = 'mcp:param-args:resolved';

type ParamMetadata = Record<string, { index: number; data?: unknown; pipes?: (Type<PipeTransform> | PipeTransform)[] }>;

/**
 * Pipe classes on MCP parameters (`@McpArgs('id', ParseIntPipe)`), made instances as Nest does
 * for a controller's route parameters: the provider registered for the class when there is one,
 * else a new instance with its dependencies injected. Nest resolves classes only for route
 * parameters it scanned itself, so without this a class would be silently ignored.
 */
export class ParamPipes {
  private readonly resolved = new WeakMap<object, Set<string>>();

  constructor(private readonly moduleRef: ModuleRef) {}

  /** The metadata key the pipeline of `ref` reads its parameters from (resolving pipe classes first, once). */
  async resolve(ref: RegisteredHandler): Promise<string> {
    const owner = ownerOf(ref);
    if (!owner) return MCP_PARAM_ARGS_METADATA;
    const done = this.resolved.get(owner);
    if (done?.has(ref.methodName)) return MCP_RESOLVED_PARAM_ARGS_METADATA;
    const metadata = Reflect.getOwnMetadata(MCP_PARAM_ARGS_METADATA, owner, ref.methodName) as ParamMetadata;
    const entries = await Promise.all(
      Object.entries(metadata).map(async ([key, param]) => [key, { ...param, pipes: await Promise.all((param.pipes ?? []).map((pipe) => this.instanceOf(pipe))) }] as const),
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

  private async instanceOf(pipe: Type<PipeTransform> | PipeTransform): Promise<PipeTransform> {
    if (typeof pipe !== 'function') return pipe;
    try {
      return this.moduleRef.get(pipe, { strict: false });
    } catch {
      return this.moduleRef.create(pipe);
    }
  }
}

/** The class whose own metadata holds the handler's parameters (the one that declared the method). */
function ownerOf(ref: RegisteredHandler): object | undefined {
  for (let type: object | null = ref.hostClass; type && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    if (Reflect.hasOwnMetadata(MCP_PARAM_ARGS_METADATA, type, ref.methodName)) return type;
  }
  return undefined;
}
