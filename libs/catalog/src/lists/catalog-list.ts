import type { McpDiagnostic } from '#libs/core';
import { decodeCursor, encodeCursor } from '../pagination/list-cursor';

/** A caller's view of a list: which entries it may see, and a key shared by callers who see the same. */
export interface ListView<T> {
  key: string;
  visible: (entry: T) => boolean;
}

/** Distinct views whose pages are kept; beyond it the cache starts over. */
const MAX_CACHED_PAGES = 1_000;

/** An entry of a catalog list: a unique key, where it was declared, and its wire definition. */
export interface CatalogEntry {
  readonly key: string;
  readonly where: string;
  readonly definition: object;
}

/**
 * One paginated list of the catalog (tools, prompts, resources or resource templates): keyed
 * entries, change listeners, and list pages serialized once per version of the list.
 */
export class CatalogList<T extends CatalogEntry> {
  private readonly entries = new Map<string, T>();
  private readonly disabled = new Set<string>();
  private readonly listeners = new Set<(changed: readonly T[]) => void>();
  private pages = new Map<string, string>();
  /** The entries each view sees, by view key; cleared on every change. */
  private views = new Map<string, T[]>();
  private ordered: T[] | undefined;
  /** Which entries lists show (all without a filter); see `setListFilter`. */
  private listFilter: ((entry: T) => boolean) | undefined;
  private listed: readonly T[] | undefined;

  /**
   * @param listName the name cursors are bound to (`tools`, `prompts`, …)
   * @param resultKey the property of the list result holding the items
   * @param describe what an entry is, for duplicate messages (`tool name`, `resource URI`)
   */
  constructor(
    readonly listName: string,
    private readonly resultKey: string,
    private readonly describe: string,
  ) {}

  /** How many entries are served (enabled). */
  get size(): number {
    return this.all().length;
  }

  /** The enabled entry with this key. */
  get(key: string): T | undefined {
    return this.disabled.has(key) ? undefined : this.entries.get(key);
  }

  /** Whether an entry with this key exists, enabled or not. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The enabled entries, in registration order. */
  all(): readonly T[] {
    return (this.ordered ??= [...this.entries.values()].filter((entry) => !this.disabled.has(entry.key)));
  }

  /** Hides an entry from lists and calls, or serves it again; returns false if there is no such entry. */
  setEnabled(key: string, enabled: boolean): boolean {
    if (!this.entries.has(key)) return false;
    if (enabled === !this.disabled.has(key)) return true;
    if (enabled) this.disabled.delete(key);
    else this.disabled.add(key);
    this.changed([this.entries.get(key)!]);
    return true;
  }

  /** Problems adding `entries` would cause (duplicates among them or with existing ones). */
  duplicates(entries: readonly T[]): McpDiagnostic[] {
    const diagnostics: McpDiagnostic[] = [];
    const seen = new Map<string, T>(this.entries);
    for (const entry of entries) {
      const other = seen.get(entry.key);
      if (other) {
        diagnostics.push({
          where: entry.where,
          problem: `${this.describe} "${entry.key}" is already used by ${other.where}`,
          fix: `give one of them a distinct ${this.describe}`,
        });
      } else seen.set(entry.key, entry);
    }
    return diagnostics;
  }

  add(entries: readonly T[]): void {
    // An entry replaced under its key changed too: the old definition is gone.
    const changed = entries.flatMap((entry) => [this.entries.get(entry.key), entry].filter((e) => e !== undefined));
    for (const entry of entries) this.entries.set(entry.key, entry);
    if (entries.length > 0) this.changed(changed);
  }

  /**
   * Tells the listeners that an entry changed without changing it: what decides who sees it did
   * (governance's quarantine of a pinned definition). Clients hear `list_changed`.
   * @returns false if there is no such entry
   */
  announce(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry) this.changed([entry]);
    return entry !== undefined;
  }

  remove(key: string): boolean {
    const entry = this.entries.get(key);
    this.disabled.delete(key);
    const removed = this.entries.delete(key);
    if (removed) this.changed([entry!]);
    return removed;
  }

  /**
   * Calls `listener` after every change with the entries added, removed, enabled or disabled (so
   * that only the callers who may see one of them need to hear of it); returns an unsubscribe function.
   */
  onChange(listener: (changed: readonly T[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The list result for `cursor`, as JSON text.
   * @throws JsonRpcError `-32602` for a cursor this list did not issue.
   */
  listPage(cursor: unknown, pageSize: number, view?: ListView<T>): string {
    const all = this.visible(view);
    const offset = decodeCursor(this.listName, cursor, all.length);
    const key = `${view?.key ?? '*'}:${pageSize}:${offset}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      if (this.pages.size >= MAX_CACHED_PAGES) this.pages.clear();
      const end = offset + pageSize;
      page = JSON.stringify({
        [this.resultKey]: all.slice(offset, end).map((entry) => entry.definition),
        ...(end < all.length && { nextCursor: encodeCursor(this.listName, end) }),
      });
      this.pages.set(key, page);
    }
    return page;
  }

  /**
   * The enabled entries `view` may see (all of them without a view) that lists show, in
   * registration order; the same array until the list changes, so it can key what is derived
   * from it.
   */
  visible(view?: ListView<T>): readonly T[] {
    return view ? this.visibleTo(view) : this.listedEntries();
  }

  /**
   * Keeps the entries `filter` refuses out of lists while they stay callable by their key (tool
   * search's `listOnly` mode lists only its meta-tools); `undefined` lists every entry again.
   */
  setListFilter(filter: ((entry: T) => boolean) | undefined): void {
    this.listFilter = filter;
    this.listed = undefined;
    this.pages = new Map();
    this.views = new Map();
  }

  private listedEntries(): readonly T[] {
    const filter = this.listFilter;
    return filter ? (this.listed ??= this.all().filter(filter)) : this.all();
  }

  private visibleTo(view: ListView<T>): T[] {
    let visible = this.views.get(view.key);
    if (!visible) {
      if (this.views.size >= MAX_CACHED_PAGES) this.views.clear();
      visible = this.listedEntries().filter(view.visible);
      this.views.set(view.key, visible);
    }
    return visible;
  }

  private changed(entries: readonly T[]): void {
    this.pages = new Map();
    this.views = new Map();
    this.ordered = undefined;
    this.listed = undefined;
    for (const listener of this.listeners) listener(entries);
  }
}
