import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { McpCallKind } from '#libs/core';
import type { AuditTrail } from '#libs/security';
import {
  changesOf,
  fingerprintOf,
  pinId,
  pinnedDefinitionOf,
  PIN_SCHEME,
  type CatalogPin,
  type PinChange,
  type PinKind,
  type PinOrigin,
  type PinnedDefinition,
} from './catalog-pin';
import { InMemoryCatalogPinStore, type CatalogPinStore } from './catalog-pin.store';
import { instructionFlagsOf, type InstructionFlag } from './instruction-flags';
import type { PinningOptions, PinScope } from './pin.options';
import { PinMessages } from './pin.messages';
import { PINS_DOCUMENT, type PinChangeSignal } from './pin-change-signal';

/** A definition an upstream or API lists, as the catalog will hold it. */
export interface ListedDefinition {
  readonly kind: PinKind;
  /** The name (or URI) its own server gives it. */
  readonly name: string;
  /** Its key in the host's catalog (the namespaced name, the gateway's URI). */
  readonly key: string;
  /** As its server lists it (MCP field names). */
  readonly definition: Record<string, unknown>;
}

/** What a reviewer sees of a quarantined definition. */
export interface PinReview {
  readonly id: string;
  readonly origin: PinOrigin;
  readonly source: string;
  readonly kind: PinKind;
  readonly name: string;
  /** `changed`: differs from the accepted one; `new`: held as new; `rejected`: an approver refused it. */
  readonly state: 'changed' | 'new' | 'rejected';
  /** The pending definition's fingerprint: an approval names it, so that what was reviewed is what is approved. */
  readonly fingerprint: string;
  readonly acceptedFingerprint?: string;
  readonly changes: readonly PinChange[];
  readonly flags: readonly InstructionFlag[];
  readonly seenAt: string;
  readonly rejected?: { readonly by: string; readonly at: string };
}

/** Where a pinned definition is in this replica's catalog. */
export interface CatalogPlace {
  readonly kind: PinKind;
  readonly callKind: McpCallKind;
  readonly key: string;
  /** `tool "wiki__search" of upstream wiki`, for messages. */
  readonly where: string;
}

/** An approver's decision on a quarantined definition, as the admin API answers it. */
export type PinDecisionOutcome = { ok: true; pin: CatalogPin } | { ok: false; status: 404 | 409; message: string };

const CALL_KIND: Readonly<Record<PinKind, McpCallKind>> = {
  tool: 'tool',
  prompt: 'prompt',
  resource: 'resource',
  resourceTemplate: 'resource',
};

/**
 * Pinned catalogs with approved drift: the definitions of pinned upstreams and APIs are
 * fingerprinted when first accepted; one that changes — or, with `newEntries: 'hold'`, one that
 * appears — is quarantined until an approver accepts the difference (admin API, dashboard). The
 * gateway and the REST bridge ask it to review what they list; governance hides quarantined
 * entries from lists and refuses their calls with the reason. The pins live in a
 * `CatalogPinStore`; a shared one is read again every `resyncMs`, so an approval made on one
 * replica applies on all.
 */
export class CatalogPins implements OnModuleDestroy {
  private readonly logger = new Logger('McpCatalogPins');
  private readonly store: CatalogPinStore;
  private pins = new Map<string, CatalogPin>();
  /** Where each pinned definition is in this replica's catalog: pin id → its kind and key. */
  private readonly bound = new Map<string, CatalogPlace>();
  /** What is quarantined, by `callKind:key` in the catalog: where, and the reason a caller is told. */
  private held = new Map<string, { place: CatalogPlace; reason: string }>();
  private readonly listeners = new Set<(flipped: readonly CatalogPlace[]) => void>();
  private timer: NodeJS.Timeout | undefined;
  private changes = 0;
  private announced = 0;
  private opened: Promise<void> | undefined;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly options: PinningOptions,
    private readonly trail?: AuditTrail,
    private readonly signal?: PinChangeSignal,
  ) {
    this.store = options.store ?? new InMemoryCatalogPinStore();
  }

  /**
   * Opens the store, reads the pins and starts following other replicas' changes — once, when
   * the first pinned upstream or API is reviewed (a host that pins nothing touches no store).
   */
  private open(): Promise<void> {
    this.opened ??= (async () => {
      await this.store.open?.();
      await this.reload();
      if (!this.store.shared) return;
      this.stopListening = this.signal?.onChange((document) => {
        if (document === PINS_DOCUMENT) void this.resync();
      });
      this.timer = setInterval(() => void this.resync(), this.options.resyncMs);
      this.timer.unref();
    })();
    return this.opened;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.stopListening?.();
    await this.store.close?.();
  }

  /** Increases whenever what is quarantined changes (lists are cached per version). */
  get version(): number {
    return this.changes;
  }

  /** Whether anything is quarantined on this replica. */
  get holding(): boolean {
    return this.held.size > 0;
  }

  /** Why the entry `key` is quarantined, or `undefined` when it is served. One map lookup. */
  heldReason(kind: McpCallKind, key: string): string | undefined {
    return this.held.size === 0 ? undefined : this.held.get(`${kind}:${key}`)?.reason;
  }

  /**
   * Calls `listener` with the catalog entries quarantined or released by a review, an approval or
   * another replica's approval.
   */
  onChange(listener: (flipped: readonly CatalogPlace[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reviews what a pinned upstream or API lists: a definition seen for the first time is accepted
   * (all of them on its first listing; later ones as `newEntries` says), the accepted one passes,
   * any other waits for an approver. Quarantines are audited.
   */
  async review(origin: PinOrigin, source: string, scope: PinScope, listed: readonly ListedDefinition[]): Promise<void> {
    await this.open();
    if (this.store.shared) await this.reload();
    const firstListing = ![...this.pins.values()].some((pin) => pin.origin === origin && pin.source === source);
    const newEntries = scope.newEntries ?? this.options.newEntries;
    const now = new Date().toISOString();
    const changed: CatalogPin[] = [];
    for (const { kind, name, key, definition } of listed) {
      const id = pinId(origin, source, kind, name);
      this.bound.set(id, {
        kind,
        callKind: CALL_KIND[kind],
        key,
        where: `${kind} "${key}" of ${originLabel(origin, source)}`,
      });
      const pinned = pinnedDefinitionOf(definition);
      const fingerprint = fingerprintOf(pinned);
      let pin = this.pins.get(id);
      const upgraded = pin && this.upgraded(pin, definition, pinned, fingerprint);
      if (upgraded) {
        changed.push(upgraded);
        pin = upgraded;
      }
      if (!pin && (firstListing || newEntries === 'accept')) {
        changed.push({
          id,
          origin,
          source,
          kind,
          name,
          accepted: { fingerprint, definition: pinned, at: now, by: 'first-use', scheme: PIN_SCHEME },
        });
      } else if (pin?.accepted?.fingerprint === fingerprint) {
        // Back to what was accepted: nothing waits any more.
        if (pin.pending) changed.push({ ...pin, pending: undefined });
      } else if (pin?.pending?.fingerprint !== fingerprint) {
        const next: CatalogPin = {
          id,
          origin,
          source,
          kind,
          name,
          ...(pin?.accepted && { accepted: pin.accepted }),
          pending: {
            fingerprint,
            definition: pinned,
            at: now,
            scheme: PIN_SCHEME,
            flags: instructionFlagsOf(pinned),
          },
        };
        changed.push(next);
        this.audit('governance/pins.quarantine', 'system', id, 'denied', {
          fingerprint,
          ...(pin?.accepted && { accepted: pin.accepted.fingerprint }),
          changes: changesOf(pin?.accepted?.definition, pinned).map((change) => change.field),
          flags: next.pending!.flags.map((flag) => flag.rule),
        });
        this.logger.warn(PinMessages.quarantined(this.bound.get(id)!.where, !pin?.accepted));
      }
    }
    if (changed.length > 0) {
      // The last change of a pin is the one kept (an upgraded pin may change again in the same review).
      const latest = [...new Map(changed.map((pin) => [pin.id, pin])).values()];
      await this.store.save(latest);
      for (const pin of latest) this.pins.set(pin.id, pin);
      this.announce();
    }
    this.rebuild();
  }

  /**
   * A pin taken before `icons` and `_meta` were pinned (scheme 1), brought to the current scheme
   * when what is listed is what it accepted (or what waits, or was rejected) by the fields it
   * covered: the fingerprint then covers the listed `icons` and `_meta` — which the host served
   * already under that pin — so an upgrade quarantines nothing that did not change, and any later
   * change of them is reviewed. Audited (`governance/pins.upgrade`) when it took in `icons` or
   * `_meta`. Otherwise (a field of the old scheme changed) the pin is left as it is and the change
   * reviewed as any other, `icons` and `_meta` shown as new.
   */
  private upgraded(
    pin: CatalogPin,
    listed: Record<string, unknown>,
    pinned: PinnedDefinition,
    fingerprint: string,
  ): CatalogPin | undefined {
    const { accepted, pending } = pin;
    const legacy = (version: { scheme?: number } | undefined) =>
      version !== undefined && (version.scheme ?? 1) < PIN_SCHEME;
    if (!legacy(accepted) && !legacy(pending)) return undefined;
    const old = fingerprintOf(pinnedDefinitionOf(listed, 1));
    const current = { fingerprint, definition: pinned, scheme: PIN_SCHEME };
    let next: CatalogPin | undefined;
    if (legacy(accepted) && accepted!.fingerprint === old) next = { ...pin, accepted: { ...accepted!, ...current } };
    else if (legacy(pending) && pending!.fingerprint === old)
      next = { ...pin, pending: { ...pending!, ...current, flags: instructionFlagsOf(pinned) } };
    if (!next) return undefined;
    if (fingerprint !== old)
      this.audit('governance/pins.upgrade', 'system', pin.id, 'ok', {
        from: old,
        fingerprint,
        state: next.accepted?.fingerprint === fingerprint ? 'accepted' : pending?.rejected ? 'rejected' : 'pending',
        added: (['icons', '_meta'] as const).filter((field) => pinned[field] !== undefined),
      });
    return next;
  }

  /**
   * Forgets where an upstream's or API's definitions are in this replica's catalog (it was removed):
   * its pins stay in the store, for when it comes back.
   */
  release(origin: PinOrigin, source: string): void {
    for (const id of this.bound.keys()) if (id.startsWith(`${origin}:${source}:`)) this.bound.delete(id);
    this.rebuild();
  }

  /** The quarantined definitions, with what changed and what was flagged, for review (read from the store). */
  async reviews(): Promise<PinReview[]> {
    await this.open();
    if (this.store.shared) await this.reload();
    return [...this.pins.values()]
      .filter((pin) => pin.pending)
      .map((pin) => {
        const pending = pin.pending!;
        return {
          id: pin.id,
          origin: pin.origin,
          source: pin.source,
          kind: pin.kind,
          name: pin.name,
          state: pending.rejected ? 'rejected' : pin.accepted ? 'changed' : 'new',
          fingerprint: pending.fingerprint,
          ...(pin.accepted && { acceptedFingerprint: pin.accepted.fingerprint }),
          changes: changesOf(pin.accepted?.definition, pending.definition),
          flags: pending.flags,
          seenAt: pending.at,
          ...(pending.rejected && { rejected: pending.rejected }),
        };
      });
  }

  /** How many definitions are pinned and accepted. */
  get acceptedCount(): number {
    let count = 0;
    for (const pin of this.pins.values()) if (pin.accepted && !pin.pending) count++;
    return count;
  }

  /**
   * An approver accepts (`approve`) or refuses (`reject`) the quarantined definition `id`, named by
   * its fingerprint (a definition that changed again since it was reviewed is not approved).
   * Kept in the store (every replica applies it), audited with who decided what.
   */
  async decide(
    id: string,
    fingerprint: string | undefined,
    decision: 'approve' | 'reject',
    actor: string,
  ): Promise<PinDecisionOutcome> {
    await this.open();
    if (this.store.shared) await this.reload();
    const pin = this.pins.get(id);
    if (!pin?.pending) return { ok: false, status: 404, message: PinMessages.nothingPending(id) };
    if (fingerprint !== undefined && fingerprint !== pin.pending.fingerprint)
      return { ok: false, status: 409, message: PinMessages.changedSinceReview(id, pin.pending.fingerprint) };
    const at = new Date().toISOString();
    const { flags: _flags, rejected: _rejected, ...version } = pin.pending;
    const next: CatalogPin =
      decision === 'approve'
        ? { ...pin, accepted: { ...version, at, by: actor }, pending: undefined }
        : { ...pin, pending: { ...pin.pending, rejected: { by: actor, at } } };
    await this.store.save([next]);
    this.pins.set(id, next);
    this.announce();
    this.audit(`admin/pins.${decision}`, actor, id, 'ok', {
      fingerprint: pin.pending.fingerprint,
      ...(pin.accepted && { replaced: pin.accepted.fingerprint }),
      changes: changesOf(pin.accepted?.definition, pin.pending.definition).map((change) => change.field),
    });
    this.logger.log(PinMessages.decided(id, decision, actor));
    this.rebuild();
    return { ok: true, pin: next };
  }

  /** Reads a shared store again (approvals made on other replicas). */
  async resync(): Promise<void> {
    try {
      await this.reload();
      this.rebuild();
    } catch (error) {
      this.logger.warn(PinMessages.unreadable(this.store.name, (error as Error).message));
    }
  }

  /** Tells the other replicas to read the store again (a shared store: theirs is this one's). */
  private announce(): void {
    if (this.store.shared)
      this.signal
        ?.announce(PINS_DOCUMENT, ++this.announced)
        .catch((error: Error) => this.logger.warn(PinMessages.unannounced(error.message)));
  }

  private async reload(): Promise<void> {
    this.pins = new Map((await this.store.load()).map((pin) => [pin.id, pin]));
  }

  /** What is quarantined, from the pins bound to this replica's catalog; listeners hear of a change. */
  private rebuild(): void {
    const held = new Map<string, { place: CatalogPlace; reason: string }>();
    for (const [id, place] of this.bound) {
      const pin = this.pins.get(id);
      if (!pin?.pending) continue;
      const fields = changesOf(pin.accepted?.definition, pin.pending.definition).map((change) => change.field);
      held.set(`${place.callKind}:${place.key}`, {
        place,
        reason: PinMessages.refused(
          place.where,
          pin.accepted ? fields : undefined,
          pin.pending.rejected !== undefined,
          id,
        ),
      });
    }
    const flipped = [
      ...[...held].filter(([key]) => !this.held.has(key)),
      ...[...this.held].filter(([key]) => !held.has(key)),
    ].map(([, { place }]) => place);
    const reasons = [...held].some(([key, { reason }]) => this.held.get(key)?.reason !== reason);
    if (flipped.length === 0 && !reasons) return;
    this.held = held;
    this.changes++;
    for (const listener of this.listeners) listener(flipped);
  }

  private audit(method: string, principal: string, target: string, outcome: 'ok' | 'denied', args: object): void {
    this.trail?.record({
      startedAt: Date.now(),
      principal,
      transport: 'http',
      method,
      target,
      arguments: args,
      outcome,
      latencyMs: 0,
    });
  }
}

function originLabel(origin: PinOrigin, source: string): string {
  return origin === 'upstream' ? `upstream ${source}` : `API ${source}`;
}
