import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '#libs/core';
import type { CatalogList, ListView, RegisteredHandler } from '#libs/catalog';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { AccessControl } from './access-control';

/** What an entry without a `cache` option counts as when others have one: stale at once, per caller. */
const UNCONFIGURED: McpCacheHints = Object.freeze({ ttlMs: 0, scope: 'private' });

/**
 * The caching hints (`ttlMs`, `cacheScope`) of 2026-07-28 list and read results, from the
 * entries' `cache` options and the module's `cache` default.
 *
 * A list is fresh for the shortest `ttlMs` among the entries the caller sees, and `public` only
 * when every entry of the whole list is `public` and open to every caller: a list that
 * authorization filters differs per caller, and even the unfiltered view of a privileged caller
 * would reveal, if shared, the entries others may not see. A read is `public` only when its
 * resource is, and is open to every caller. Nothing configured anywhere: `undefined`, and the
 * dispatcher's default applies (`ttlMs: 0`, `private`).
 */
@Injectable()
export class CacheHints {
  private readonly defaults: McpCacheHints | undefined;
  /** Hints per visible-entries array (the list keeps one per view until it changes). */
  private readonly ttls = new WeakMap<readonly RegisteredHandler[], number>();
  /** Whether a whole list may be shared, per its entries array. */
  private readonly shared = new WeakMap<readonly RegisteredHandler[], { configured: boolean; public: boolean }>();

  constructor(
    @InjectProtocolOptions() options: ProtocolOptions,
    private readonly access: AccessControl,
  ) {
    this.defaults = options.cache;
  }

  /** The hints of `list` as `view` sees it; `undefined` when neither the module nor any entry configures caching. */
  ofList<T extends RegisteredHandler>(list: CatalogList<T>, view: ListView<T>): McpCacheHints | undefined {
    const whole = this.wholeList(list.visible());
    if (!whole.configured) return undefined;
    const visible = list.visible(view);
    let ttlMs = this.ttls.get(visible);
    if (ttlMs === undefined) {
      ttlMs = visible.length === 0 ? (this.defaults ?? UNCONFIGURED).ttlMs : Infinity;
      for (const entry of visible) ttlMs = Math.min(ttlMs, this.configuredOf(entry).ttlMs);
      this.ttls.set(visible, ttlMs);
    }
    return { ttlMs, scope: whole.public ? 'public' : 'private' };
  }

  /** The hints of a result of `entry` (a resource read); `undefined` when nothing configures caching. */
  ofEntry(entry: RegisteredHandler): McpCacheHints | undefined {
    const hints = entry.cache ?? this.defaults;
    if (!hints || hints.scope === 'private' || this.access.allowsEveryone(entry)) return hints;
    return { ttlMs: hints.ttlMs, scope: 'private' };
  }

  private configuredOf(entry: RegisteredHandler): McpCacheHints {
    return entry.cache ?? this.defaults ?? UNCONFIGURED;
  }

  private wholeList(all: readonly RegisteredHandler[]): { configured: boolean; public: boolean } {
    let whole = this.shared.get(all);
    if (!whole) {
      whole = {
        configured: this.defaults !== undefined || all.some((entry) => entry.cache !== undefined),
        public:
          all.length === 0
            ? this.defaults?.scope === 'public'
            : all.every((entry) => this.configuredOf(entry).scope === 'public' && this.access.allowsEveryone(entry)),
      };
      this.shared.set(all, whole);
    }
    return whole;
  }
}
