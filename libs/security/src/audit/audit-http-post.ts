import type { ConnectionOptions } from 'node:tls';
import { classifyAddress } from '../outbound/address-class';
import type { Agent } from 'undici';
import { guardedAgent } from '../outbound/outbound-connector';
import { outboundFetch } from '../outbound/outbound-fetch';
import { OutboundPolicies } from '../outbound/outbound-policies';
import type { OutboundPolicy } from '../outbound/outbound-policy';

/** The most bytes of a receiver's answer read (its text is quoted in an error, 200 characters at most). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Where and how a forwarding sink posts its batches. */
export interface AuditPostTarget {
  url: URL;
  /** The longest one delivery may take, the answer included. */
  timeoutMs: number;
  /** The sink, named in errors (`WebhookAuditSink`). */
  sink: string;
  /** `node:tls` options for an https URL (a private CA, a client certificate). */
  tls?: ConnectionOptions;
}

/** Each target's policy (the operator's URL) and agent, made with its first batch. */
const guards = new WeakMap<AuditPostTarget, { policy: OutboundPolicy; dispatcher: Agent }>();

/**
 * Posts one body and resolves when the receiver answered 2xx; rejects on any other status (a
 * redirect included: none is followed), a refused or failed connection, or no whole answer
 * within the timeout (the caller retries the same body).
 */
export async function postBatch(target: AuditPostTarget, body: Buffer, headers: Record<string, string>): Promise<void> {
  const { url, timeoutMs, tls, sink } = target;
  let guard = guards.get(target);
  if (!guard) {
    const policy = OutboundPolicies.configured([url], `the audit sink ${sink}`);
    guard = { policy, dispatcher: guardedAgent(policy, url.protocol === 'https:' ? tls : undefined) };
    guards.set(target, guard);
  }
  const response = await outboundFetch(
    url,
    { method: 'POST', headers, body },
    {
      purpose: `the receiver of ${sink}`,
      ...guard,
      timeoutMs,
      timeoutOption: `${sink}'s timeoutMs`,
      maxBytes: MAX_ANSWER_BYTES,
    },
  );
  if (response.ok) return;
  const text = (await response.text()).trim().slice(0, 200);
  throw new Error(`${url.host} answered ${response.status}${text ? `: ${text}` : ''}`);
}

/** Problems of a sink's `url` option (an http URL only on loopback, unless allowed). */
export function urlProblems(value: unknown, allowHttp: boolean, example: string): string[] {
  if (typeof value !== 'string') return [`url: give the receiver's URL, e.g. "${example}"`];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [`url: "${value}" is not a URL; e.g. "${example}"`];
  }
  if (url.protocol === 'https:') return [];
  if (url.protocol !== 'http:') return [`url: use https (got ${url.protocol})`];
  const loopback = url.hostname === 'localhost' || classifyAddress(url.hostname)?.class === 'loopback';
  return loopback || allowHttp
    ? []
    : [`url: records would cross the network unencrypted; use https, or set allowHttp: true on a trusted network`];
}
