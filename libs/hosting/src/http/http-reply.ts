import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import {
  InjectProtocolOptions,
  InjectSessionRelay,
  InjectSharedStreams,
  ResumableStream,
  type SessionRelay,
  type SharedStreams,
  type McpAnswer,
  type McpSession,
  type ProtocolOptions,
  type ReplyChannel,
} from '#libs/protocol';
import type { Accepts } from './accepts';
import { HttpResponder } from './http-responder';
import { HttpSessions } from './http-sessions';
import { SseStream } from './sse-stream';

/** How long a client waits before reconnecting to a stream the server closed (SSE `retry`). */
const RECONNECT_DELAY_MS = 500;
/** The first revision with SSE priming events and server-initiated disconnection (SEP-1699). */
const POLLING_SINCE = '2025-11-25';
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NOT_WATCHED = () => undefined;

/** Whether a client of this revision understands priming events (revisions are ISO dates, so they sort as text). */
function supportsPolling(protocolVersion: string): boolean {
  return protocolVersion >= POLLING_SINCE;
}

/** Settles once the response is over (written out, or its connection gone). */
function over(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  // 'close' comes once: `on` spares the wrapper `once` makes.
  return new Promise((resolve) => res.on('close', resolve));
}

/**
 * Makes the way back of each POST (`HttpReply`), with what the replies share: the session
 * commit, the relay to a session's stream on another replica, the shared streams.
 */
@Injectable()
export class HttpReplies {
  readonly logger = new Logger('McpHttp');
  readonly stateful: boolean;

  constructor(
    @InjectProtocolOptions() protocol: ProtocolOptions,
    readonly responder: HttpResponder,
    readonly sessions: HttpSessions,
    @InjectSessionRelay() readonly relay: SessionRelay,
    @InjectSharedStreams() readonly sharedStreams: SharedStreams,
  ) {
    this.stateful = protocol.mode === 'stateful';
  }

  /**
   * The reply channel of one POSTed message.
   * @param headers what the answer carries besides (a new session's id)
   */
  open(
    req: IncomingMessage,
    res: ServerResponse,
    session: McpSession,
    accept: Accepts,
    headers?: Record<string, string>,
  ): HttpReply {
    return new HttpReply(this, req, res, session, accept, headers);
  }
}

/**
 * The way back to the client of one POST (Streamable HTTP). The answer is JSON, or an SSE stream
 * as soon as the call sends something and the client accepts `text/event-stream`; without one,
 * what the call sends goes to the session's GET stream. With a session (stateful mode) an SSE
 * stream is resumable: a dropped connection is not a cancellation, the client picks up the rest
 * with GET + `Last-Event-ID`, and a 2025-11-25 client's stream may be let go early (SEP-1699: a
 * priming event first; older clients cannot parse an event without data, so they get ids alone).
 */
export class HttpReply implements ReplyChannel {
  private stream: SseStream | undefined;
  private replay: ResumableStream | undefined;
  private readonly resumable: boolean;
  private readonly polling: boolean;

  constructor(
    private readonly replies: HttpReplies,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly session: McpSession,
    private readonly accept: Accepts,
    private readonly headers: Record<string, string> | undefined,
  ) {
    this.resumable = replies.stateful && accept.sse && session.id !== undefined;
    this.polling = this.resumable && supportsPolling(session.protocolVersion);
  }

  send(message: string): boolean {
    if (this.accept.sse && (this.stream || !this.res.writableEnded)) {
      this.openStream();
      if (this.replay) this.replay.send(message);
      else this.stream!.send(message);
      return true;
    }
    // With replicas sharing the session, its notification stream may be held by another.
    return this.replies.relay.toSession(this.session, message);
  }

  /** A call loses its request when the client goes away, unless the stream is resumable. */
  onLost(abort: (reason: Error) => void): () => void {
    if (this.resumable) return NOT_WATCHED;
    const res = this.res;
    const onClose = () => {
      if (!res.writableFinished) abort(new Error('client disconnected'));
    };
    // A client already gone (e.g. while its body was read) will send no 'close' any more.
    if (this.req.socket.destroyed) {
      queueMicrotask(onClose);
      return NOT_WATCHED;
    }
    res.on('close', onClose); // comes once
    return () => res.off('close', onClose);
  }

  release(): void {
    if (!this.polling || this.res.writableEnded) return;
    this.openStream();
    this.replay!.release();
  }

  /**
   * Commits the session first (what the request changed of it reaches the other replicas before
   * the client can send them its next request), then writes; resolves once the response is over.
   */
  async answer({ body, status }: McpAnswer): Promise<void> {
    const committed = this.replies.sessions.commit(this.session, this.req, this.res);
    if (committed === true || (await committed)) this.write(body, status);
    await over(this.res);
  }

  private write(body: string | undefined, status: number): void {
    const { res, replay, stream } = this;
    if (body === undefined) {
      // A notification, a client's response, or a request its client cancelled: no body, and the connection let go.
      if (replay) replay.finish();
      else if (stream) stream.end();
      else this.replies.responder.empty(res, 202, this.headers);
    } else if (replay) {
      replay.send(body);
      replay.finish();
    } else if (stream) {
      stream.send(body);
      stream.end();
    } else if (!this.accept.json) {
      new SseStream(res, this.headers ?? NO_HEADERS).send(body);
      res.end();
    } else this.replies.responder.json(res, status, body, this.headers);
  }

  private openStream(): void {
    if (this.stream) return;
    const stream = (this.stream = new SseStream(this.res, this.headers ?? NO_HEADERS));
    if (!this.resumable) return;
    const session = this.session;
    const created = new ResumableStream(randomUUID(), () => session.streams.delete(created.id));
    session.streams.set(created.id, created);
    // Kept where the other replicas find it too, for a reconnection that reaches one of them.
    this.replies.sharedStreams.opened(created, session.id!);
    if (this.polling) stream.prime(created.primingId, RECONNECT_DELAY_MS);
    created.attach(stream, created.primingId);
    this.replay = created;
  }
}
