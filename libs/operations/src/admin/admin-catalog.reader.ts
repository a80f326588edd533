import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getOptionsToken, type ThrottlerModuleOptions, type ThrottlerOptions } from '@nestjs/throttler';
import {
  PromptRegistry,
  ResourceRegistry,
  ToolRegistry,
  type AccessRequirements,
  type RegisteredHandler,
} from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';

// The metadata keys of @nestjs/throttler's @Throttle and @SkipThrottle (its `throttler.constants`,
// not exported from the package root), suffixed with the throttler's name.
const THROTTLER_LIMIT = 'THROTTLER:LIMIT';
const THROTTLER_TTL = 'THROTTLER:TTL';
const THROTTLER_BLOCK_DURATION = 'THROTTLER:BLOCK_DURATION';
const THROTTLER_SKIP = 'THROTTLER:SKIP';

/** The limit of one named throttler for one entry, as `McpThrottlerGuard` would apply it. */
export interface AdminThrottle {
  throttler: string;
  /** `null` when it is computed per request (a function). */
  limit: number | null;
  ttlMs: number | null;
  blockDurationMs: number | null;
  /** `@SkipThrottle` turns this throttler off for the entry. */
  skipped: boolean;
  /** Where the numbers come from: the method's or class's `@Throttle`, or the module. */
  source: 'method' | 'class' | 'module';
}

export interface AdminCatalogEntry {
  /** Tool or prompt name, resource URI, or URI template. */
  name: string;
  /** `Class.method` that serves it. */
  where: string;
  /** The wire definition (`tools/list` item, …): description, schemas, annotations. */
  definition: object;
  access: AccessRequirements;
  /** `null` without a `ThrottlerModule` in the application. */
  throttle: AdminThrottle[] | null;
}

export interface AdminToolEntry extends AdminCatalogEntry {
  timeoutMs: number;
  maxConcurrency: number | null;
  task: 'optional' | 'required' | null;
  /** Whether the user confirms each call first. */
  confirm: boolean;
}

export interface AdminCatalog {
  tools: AdminToolEntry[];
  prompts: AdminCatalogEntry[];
  resources: AdminCatalogEntry[];
  resourceTemplates: AdminCatalogEntry[];
  /** The application's named throttlers (module defaults), `null` without a `ThrottlerModule`. */
  throttlers: { name: string; limit: number | null; ttlMs: number | null }[] | null;
}

/**
 * The catalog as operators need it: every served entry with its schemas, annotations, required
 * scopes and roles, and the throttling `@nestjs/throttler` metadata gives it (`@Throttle` on the
 * method or class over the module's throttlers, `@SkipThrottle`), read as the throttler guard
 * reads it. Throttling applies where `McpThrottlerGuard` is installed (e.g. as `APP_GUARD`).
 */
@Injectable()
export class AdminCatalogReader {
  private throttlers: (ThrottlerOptions & { name: string })[] | null | undefined;

  constructor(
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly moduleRef: ModuleRef,
  ) {}

  read(): AdminCatalog {
    const throttlers = this.namedThrottlers();
    return {
      tools: this.tools.all().map((tool) => ({
        ...this.entry(tool.name, tool, throttlers),
        timeoutMs: tool.options.timeoutMs ?? this.protocol.tools.timeoutMs,
        maxConcurrency: tool.options.maxConcurrency ?? null,
        task: tool.options.task ?? null,
        // As the tool methods decide it: the tool's own `confirm`, else destructive tools when configured.
        confirm:
          tool.options.confirm !== undefined
            ? tool.options.confirm !== false
            : this.protocol.tools.confirmDestructive && tool.definition.annotations?.destructiveHint === true,
      })),
      prompts: this.prompts.all().map((prompt) => this.entry(prompt.name, prompt, throttlers)),
      resources: this.resources.resources.all().map((resource) => this.entry(resource.uri, resource, throttlers)),
      resourceTemplates: this.resources.templates
        .all()
        .map((template) => this.entry(template.template.template, template, throttlers)),
      throttlers:
        throttlers &&
        throttlers.map(({ name, limit, ttl }) => ({ name, limit: numberOrNull(limit), ttlMs: numberOrNull(ttl) })),
    };
  }

  private entry(
    name: string,
    handler: RegisteredHandler,
    throttlers: (ThrottlerOptions & { name: string })[] | null,
  ): AdminCatalogEntry {
    return {
      name,
      where: handler.where,
      definition: handler.definition,
      access: { scopes: [...handler.access.scopes], roles: [...handler.access.roles] },
      throttle: throttlers && throttlers.map((throttler) => throttleOf(handler, throttler)),
    };
  }

  /** The throttlers of the application's `ThrottlerModule`, looked up once; `null` without one. */
  private namedThrottlers(): (ThrottlerOptions & { name: string })[] | null {
    if (this.throttlers !== undefined) return this.throttlers;
    let options: ThrottlerModuleOptions | undefined;
    try {
      options = this.moduleRef.get<ThrottlerModuleOptions>(getOptionsToken(), { strict: false });
    } catch {
      options = undefined;
    }
    const list = options === undefined ? undefined : Array.isArray(options) ? options : options.throttlers;
    this.throttlers = list ? list.map((throttler) => ({ ...throttler, name: throttler.name ?? 'default' })) : null;
    return this.throttlers;
  }
}

function throttleOf(handler: RegisteredHandler, throttler: ThrottlerOptions & { name: string }): AdminThrottle {
  const method = (handler.hostClass.prototype as Record<string, unknown>)[handler.methodName] as object | undefined;
  // The method's metadata wins over the class's, as with the guard's `getAllAndOverride([handler, class])`.
  const read = (key: string): { value: unknown; source: AdminThrottle['source'] } | undefined => {
    const onMethod = method === undefined ? undefined : Reflect.getMetadata(key + throttler.name, method);
    if (onMethod !== undefined) return { value: onMethod, source: 'method' };
    const onClass = Reflect.getMetadata(key + throttler.name, handler.hostClass);
    return onClass !== undefined ? { value: onClass, source: 'class' } : undefined;
  };
  const limit = read(THROTTLER_LIMIT);
  const ttl = read(THROTTLER_TTL);
  const block = read(THROTTLER_BLOCK_DURATION);
  const ttlMs = numberOrNull(ttl?.value ?? throttler.ttl);
  return {
    throttler: throttler.name,
    limit: numberOrNull(limit?.value ?? throttler.limit),
    ttlMs,
    blockDurationMs: numberOrNull(block?.value ?? throttler.blockDuration) ?? ttlMs,
    skipped: read(THROTTLER_SKIP)?.value === true,
    source: limit?.source ?? ttl?.source ?? 'module',
  };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
