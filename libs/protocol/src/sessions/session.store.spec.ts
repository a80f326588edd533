import { LATEST_PROTOCOL_VERSION } from '#libs/core';
import { CallCancellation } from '#libs/invocation';
import type { ProtocolOptions } from '../options/protocol.options';
import { McpSession } from './mcp-session';
import { SessionStore } from './session.store';

const T0 = 1_700_000_000_000;
const TTL = 60_000;

/** A store whose session options are the only ones it reads; the rest do not matter here. */
function storeWith(sessions: Partial<ProtocolOptions['sessions']> = {}): SessionStore {
  const options = {
    sessions: { idleTtlMs: TTL, max: 100, maxPerPrincipal: 10, maxSubscriptions: 10, ...sessions },
  } as ProtocolOptions;
  return new SessionStore(options);
}

describe('SessionStore', () => {
  let store: SessionStore;

  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => {
    store?.onModuleDestroy();
    jest.useRealTimers();
  });

  describe('create and get', () => {
    it('opens a session for a principal, with a fresh id and the latest protocol version', () => {
      store = storeWith();
      const session = store.create('alice');
      expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(session.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      expect(session.principalId).toBe('alice');
      // Without an explicit owner the principal is what the per-principal limit counts.
      expect(session.owner).toBe('alice');
      expect(store.create('alice').id).not.toBe(session.id);
      expect(store.size).toBe(2);
    });

    it('keeps the owner apart from the principal when one is given (an address when unauthenticated)', () => {
      store = storeWith();
      const session = store.create('anonymous', '10.0.0.7');
      expect(session.principalId).toBe('anonymous');
      expect(session.owner).toBe('10.0.0.7');
    });

    it('finds a session by id and marks it used', () => {
      store = storeWith();
      const session = store.create('alice');
      expect(session.lastSeen).toBe(T0);
      jest.setSystemTime(T0 + 5_000);
      expect(store.get(session.id!)).toBe(session);
      expect(session.lastSeen).toBe(T0 + 5_000);
    });

    it('answers undefined for an id it does not hold', () => {
      store = storeWith();
      store.create('alice');
      expect(store.get('no-such-session')).toBeUndefined();
    });

    it('lists every HTTP session', () => {
      store = storeWith();
      const a = store.create('alice');
      const b = store.create('bob');
      expect([...store.all()]).toEqual([a, b]);
    });
  });

  describe('limits', () => {
    it('admits a new session while there is room', () => {
      store = storeWith({ max: 2, maxPerPrincipal: 2 });
      expect(store.refusal('alice')).toBeUndefined();
      store.create('alice');
      expect(store.refusal('alice')).toBeUndefined();
    });

    it('refuses everyone once the host holds `max` sessions', () => {
      store = storeWith({ max: 2, maxPerPrincipal: 5 });
      store.create('alice');
      store.create('bob');
      expect(store.refusal('carol')).toEqual({ reason: 'full', limit: 2 });
      expect(store.refusal('alice')).toEqual({ reason: 'full', limit: 2 });
    });

    it('refuses an owner at its own limit, and says when its least recently used session expires', () => {
      store = storeWith({ maxPerPrincipal: 2 });
      const first = store.create('alice');
      jest.setSystemTime(T0 + 10_000);
      store.create('alice');
      jest.setSystemTime(T0 + 20_000);
      // The first session was last used at T0: it expires at T0 + TTL, 40 s from now.
      expect(store.refusal('alice')).toEqual({ reason: 'owner_full', limit: 2, retryAfterSec: 40 });
      // Using it again moves its expiry; the other one is now the oldest (T0 + 10 s → 50 s from now).
      store.get(first.id!);
      expect(store.refusal('alice')).toEqual({ reason: 'owner_full', limit: 2, retryAfterSec: 50 });
      // Another owner is not held back by alice's sessions.
      expect(store.refusal('bob')).toBeUndefined();
    });

    it('counts by owner, not by principal', () => {
      store = storeWith({ maxPerPrincipal: 1 });
      store.create('anonymous', '10.0.0.1');
      expect(store.refusal('10.0.0.1')).toMatchObject({ reason: 'owner_full', limit: 1 });
      expect(store.refusal('10.0.0.2')).toBeUndefined();
      expect(store.refusal('anonymous')).toBeUndefined();
    });

    it('never tells a refused owner to retry in less than a second', () => {
      store = storeWith({ maxPerPrincipal: 1 });
      store.create('alice');
      expect(store.refusal('alice', T0 + TTL + 5_000)).toEqual({ reason: 'owner_full', limit: 1, retryAfterSec: 1 });
    });

    it('gives the slot back when a session of the owner ends', () => {
      store = storeWith({ maxPerPrincipal: 1 });
      const session = store.create('alice');
      expect(store.refusal('alice')).toBeDefined();
      store.delete(session.id!);
      expect(store.refusal('alice')).toBeUndefined();
    });
  });

  describe('delete', () => {
    it('ends the session: aborts its calls in flight, runs its cleanups and tells the listeners', () => {
      store = storeWith();
      const session = store.create('alice');
      const call = new CallCancellation();
      session.inFlight.set(1, call);
      const cleanup = jest.fn();
      session.cleanups.add(cleanup);
      const closed: McpSession[] = [];
      store.onClose((s) => closed.push(s));

      expect(store.delete(session.id!, 'client said goodbye')).toBe(true);

      expect(store.get(session.id!)).toBeUndefined();
      expect(store.size).toBe(0);
      expect(call.isCancelled).toBe(true);
      expect((call.cause as Error).message).toBe('client said goodbye');
      expect(cleanup).toHaveBeenCalledTimes(1);
      expect(closed).toEqual([session]);
    });

    it('gives the default reason "session ended"', () => {
      store = storeWith();
      const session = store.create('alice');
      const call = new CallCancellation();
      session.inFlight.set(1, call);
      store.delete(session.id!);
      expect((call.cause as Error).message).toBe('session ended');
    });

    it('answers false, and tells no listener, for a session it does not hold (or no longer holds)', () => {
      store = storeWith();
      const session = store.create('alice');
      const listener = jest.fn();
      store.delete(session.id!);
      store.onClose(listener);
      expect(store.delete(session.id!)).toBe(false);
      expect(store.delete('never-existed')).toBe(false);
      expect(listener).not.toHaveBeenCalled();
    });

    it('closes every session at shutdown', () => {
      store = storeWith();
      const sessions = [store.create('alice'), store.create('bob')];
      const calls = sessions.map((session) => {
        const call = new CallCancellation();
        session.inFlight.set(1, call);
        return call;
      });
      const closed: McpSession[] = [];
      store.onClose((s) => closed.push(s));
      store.closeAll();
      expect(store.size).toBe(0);
      expect(closed).toEqual(sessions);
      expect(calls.map((call) => (call.cause as Error).message)).toEqual(['host shutting down', 'host shutting down']);
    });
  });

  describe('expiry', () => {
    it('ends the sessions idle for longer than the TTL on its own timer, and keeps the ones in use', () => {
      store = storeWith();
      const idle = store.create('alice');
      const used = store.create('bob');
      const closed: string[] = [];
      store.onClose((s) => closed.push(s.principalId!));

      jest.advanceTimersByTime(TTL / 2);
      store.get(used.id!);
      jest.advanceTimersByTime(TTL / 2);
      // Exactly TTL idle is not yet "longer than" the TTL.
      expect(store.size).toBe(2);
      jest.advanceTimersByTime(TTL / 2);

      expect(closed).toEqual(['alice']);
      expect(store.get(idle.id!)).toBeUndefined();
      expect(store.get(used.id!)).toBe(used);
    });

    it('closes an expired session with the reason "session expired"', () => {
      store = storeWith();
      const session = store.create('alice');
      const close = jest.spyOn(session, 'close');
      store.sweep(T0 + TTL + 1);
      expect(store.size).toBe(0);
      expect(close).toHaveBeenCalledWith('session expired');
    });

    it('does not expire a session while a call of it is still running', () => {
      store = storeWith();
      const session = store.create('alice');
      const call = new CallCancellation();
      session.inFlight.set(7, call);
      store.sweep(T0 + 10 * TTL);
      expect(store.size).toBe(1);
      expect(call.isCancelled).toBe(false);
      // Once the call is over, the next sweep ends it.
      session.inFlight.delete(7);
      store.sweep(T0 + 10 * TTL);
      expect(store.size).toBe(0);
    });

    it('sweeps at half the TTL, but at least once a minute', () => {
      store = storeWith({ idleTtlMs: 10 * 60_000 });
      store.create('alice');
      // Idle for 10 min + 1 min: the sweep after the first minute past the TTL ends it.
      jest.advanceTimersByTime(11 * 60_000);
      expect(store.size).toBe(0);
    });

    it('starts its timer with the first session only, and stops it on module destroy', () => {
      store = storeWith();
      expect(jest.getTimerCount()).toBe(0);
      store.create('alice');
      store.create('bob');
      expect(jest.getTimerCount()).toBe(1);
      store.onModuleDestroy();
      expect(jest.getTimerCount()).toBe(0);
    });
  });

  describe('the local (stdio) session', () => {
    it('is live and counted, but is no HTTP session: not in size, not limited, never expired', () => {
      store = storeWith({ max: 1, maxPerPrincipal: 1 });
      const local = new McpSession(undefined, LATEST_PROTOCOL_VERSION);
      store.attachLocal(local);
      expect(store.refusal('local-user')).toBeUndefined();
      const http = store.create('alice');

      expect(store.size).toBe(1);
      expect(store.liveCount).toBe(2);
      expect([...store.live()]).toEqual([http, local]);
      expect([...store.all()]).toEqual([http]);
      expect(store.isLocal(local)).toBe(true);
      expect(store.isLocal(http)).toBe(false);

      store.sweep(T0 + 10 * TTL);
      expect([...store.live()]).toEqual([local]);
    });

    it('is removed by the function attachLocal returns, unless another took its place', () => {
      store = storeWith();
      const first = new McpSession(undefined, LATEST_PROTOCOL_VERSION);
      const second = new McpSession(undefined, LATEST_PROTOCOL_VERSION);
      const detachFirst = store.attachLocal(first);
      const detachSecond = store.attachLocal(second);
      detachFirst();
      expect(store.isLocal(second)).toBe(true);
      expect(store.liveCount).toBe(1);
      detachSecond();
      expect(store.liveCount).toBe(0);
      expect([...store.live()]).toEqual([]);
    });
  });
});
