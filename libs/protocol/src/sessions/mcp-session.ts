import { isStatelessVersion, type McpLogLevel } from '#libs/core';
import type { RequestEnvelope } from '../eras/request-envelope';
import type { CallCancellation } from '#libs/invocation';
import { ClientRequests } from './client-requests';
import type { ResumableStream } from './resumable-stream';

/** Where notifications that belong to no request go (the GET stream, or stdout on stdio). */
export type NotificationSink = (message: string) => void;

/**
 * What the host remembers about one client: negotiated version, client info and capabilities,
 * log level, calls in flight (for cancellation) and its standalone notification stream.
 * In stateless mode a short-lived session is made per request.
 */
export class McpSession {
  protocolVersion: string;
  /**
   * Speaks a stateless revision (2026-07-28): results carry `resultType`, client requests become
   * input requests. Fixed at creation: `initialize` only ever negotiates a session-era revision.
   */
  readonly stateless: boolean;
  clientInfo: { name: string; version: string } | undefined;
  clientCapabilities: Record<string, unknown> | undefined;
  logLevel: McpLogLevel | undefined;
  /** `initialize` was answered: the session may be used (stdio has its session before that). */
  opened = false;
  initialized = false;
  /** The principal that opened the session; no one else may use it. */
  principalId: string | undefined;
  /** What the per-principal session limit counts it against (the principal, or the address when unauthenticated). */
  owner: string | undefined;
  /** When the session was opened (ms since the epoch), for the admin dashboard. */
  createdAt = Date.now();
  lastSeen = this.createdAt;
  // The collections below are made when first used: most sessions (one per stateless request)
  // never use most of them, and an idle session should cost little.
  private made?: {
    inFlight?: Map<string | number, CallCancellation>;
    clientRequests?: ClientRequests;
    streams?: Map<string, ResumableStream>;
    subscriptions?: Set<string>;
    cleanups?: Set<() => void>;
  };
  /**
   * The standalone notification streams (HTTP GETs, or stdout), oldest first. A client may hold
   * several; each message goes on one of them, the newest.
   */
  private sinks: NotificationSink[] | undefined;

  /** Cancellation of the requests in flight, by JSON-RPC id. */
  get inFlight(): Map<string | number, CallCancellation> {
    return ((this.made ??= {}).inFlight ??= new Map());
  }

  /** Requests sent to this client and not answered yet. */
  get clientRequests(): ClientRequests {
    return ((this.made ??= {}).clientRequests ??= new ClientRequests());
  }

  /** Resumable SSE streams of this session's requests, by stream id. */
  get streams(): Map<string, ResumableStream> {
    return ((this.made ??= {}).streams ??= new Map());
  }

  /** URIs this client subscribed to (`resources/subscribe`). */
  get subscriptions(): Set<string> {
    return ((this.made ??= {}).subscriptions ??= new Set());
  }

  /** Run once when the session ends (e.g. closing its open streams). */
  get cleanups(): Set<() => void> {
    return ((this.made ??= {}).cleanups ??= new Set());
  }

  constructor(
    readonly id: string | undefined,
    protocolVersion: string,
  ) {
    this.protocolVersion = protocolVersion;
    this.stateless = isStatelessVersion(protocolVersion);
  }

  /**
   * The one-request session of a stateless (2026-07-28) request: what its `_meta` says about the
   * client, for this request only (the spec forbids inferring capabilities from earlier ones).
   */
  static forRequest(envelope: RequestEnvelope, principalId: string | undefined): McpSession {
    const session = new McpSession(undefined, envelope.protocolVersion);
    session.clientInfo = envelope.clientInfo;
    session.clientCapabilities = envelope.clientCapabilities;
    session.logLevel = envelope.logLevel;
    session.principalId = principalId;
    session.opened = session.initialized = true;
    return session;
  }

  /** Where a notification that belongs to no request goes: the newest open stream, if any. */
  get sink(): NotificationSink | undefined {
    return this.sinks?.[this.sinks.length - 1];
  }

  /** Open standalone streams. */
  get sinkCount(): number {
    return this.sinks?.length ?? 0;
  }

  /** Adds a standalone stream; returns how to remove it (when it closes). */
  addSink(sink: NotificationSink): () => void {
    const sinks = (this.sinks ??= []);
    sinks.push(sink);
    return () => {
      const index = sinks.indexOf(sink);
      if (index >= 0) sinks.splice(index, 1);
    };
  }

  /** Ends the session: aborts every call in flight. */
  close(reason: string): void {
    if (this.sinks) this.sinks.length = 0;
    const made = this.made;
    if (!made) return;
    if (made.inFlight) for (const call of made.inFlight.values()) call.cancel(new Error(reason));
    made.clientRequests?.abandon(reason);
    if (made.streams) for (const stream of made.streams.values()) stream.release();
    made.streams?.clear();
    made.inFlight?.clear();
    if (made.cleanups) for (const cleanup of made.cleanups) cleanup();
    made.cleanups?.clear();
  }
}
