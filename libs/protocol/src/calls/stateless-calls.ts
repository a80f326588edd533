import { Injectable } from '@nestjs/common';
import type { CallCancellation } from '#libs/invocation';
import type { JsonRpcId } from '../wire/json-rpc';

/**
 * The calls in flight on stateless HTTP requests, by principal and request id. Without a session
 * a `notifications/cancelled` arrives on a POST of its own (as the official SDKs send it), with
 * nothing but the caller and the id to find the call it names.
 */
@Injectable()
export class StatelessCalls {
  /** One call, or the calls (a client may reuse an id) — a set only when there are several. */
  private readonly calls = new Map<string, CallCancellation | Set<CallCancellation>>();

  /** Registers a call; returns how to unregister it. */
  add(principal: string, id: JsonRpcId, call: CallCancellation): () => void {
    const key = keyOf(principal, id);
    const same = this.calls.get(key);
    if (!same) this.calls.set(key, call);
    else if (same instanceof Set) same.add(call);
    else this.calls.set(key, new Set([same, call]));
    return () => {
      const now = this.calls.get(key);
      if (now === call) this.calls.delete(key);
      else if (now instanceof Set) {
        now.delete(call);
        if (now.size === 0) this.calls.delete(key);
      }
    };
  }

  /**
   * The call `principal` names by `id`. Two clients of one principal may use the same id at once
   * (ids count from 0 per client); then the cancellation is ambiguous and cancels nothing.
   */
  find(principal: string, id: JsonRpcId): CallCancellation | undefined {
    const same = this.calls.get(keyOf(principal, id));
    if (same instanceof Set) return same.size === 1 ? same.values().next().value : undefined;
    return same;
  }
}

/** Principal ids are free text: a separator no id or JSON-RPC id can hold keeps keys apart. */
const keyOf = (principal: string, id: JsonRpcId) => `${principal}\u0000${typeof id}:${id}`;
