import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import {
  DEFAULT_HTTP_PROTOCOL_VERSION,
  isStatelessVersion,
  JsonRpcErrorCode,
  STATELESS_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpPrincipal,
} from '#libs/core';
import { checkOriginAndHost, ClientAddresses, InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import {
  classify,
  HostState,
  InjectProtocolOptions,
  InjectSessionRelay,
  InjectSharedStreams,
  isStatelessRequest,
  McpDispatcher,
  McpSession,
  ResumableStream,
  SessionStore,
  streamIdOf,
  type DispatchScope,
  type JsonRpcMessage,
  type MessageKind,
  type ProtocolOptions,
  type SessionRelay,
  type SharedStreams,
} from '#libs/protocol';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { BodyTooLargeError, ClientGoneError, readBody } from './body-reader';
import { HttpAuthentication } from './http-authentication';
import { HttpCors } from './http-cors';
import { HttpResponder } from './http-responder';
import { HttpMessages } from './http.messages';
import { SseStream } from './sse-stream';
import { StatelessHeaders, VERSION_HEADER } from './stateless-headers';

const SESSION_HEADER = 'mcp-session-id';
/** Most GET (standalone notification) streams one session may hold open at once. */
const MAX_GET_STREAMS = 8;
/** How long a client waits before reconnecting to a stream the server closed (SSE `retry`). */
const RECONNECT_DELAY_MS = 500;

interface Accepts {
  json: boolean;
  sse: boolean;
}

/** What a 2026-07-28 request is handed to the dispatcher with (it never holds state: see `McpDispatcher`). */
const STATELESS_REQUEST = new McpSession(undefined, STATELESS_PROTOCOL_VERSION);

/** The first revision with SSE priming events and server-initiated disconnection (SEP-1699). */
const POLLING_SINCE = '2025-11-25';

/** Whether a client of this revision understands priming events (revisions are ISO dates, so they sort as text). */
function supportsPolling(protocolVersion: string): boolean {
  return protocolVersion >= POLLING_SINCE;
}

function accepts(header: string | undefined): Accepts {
  if (!header || header.includes('*/*')) return { json: true, sse: true };
  return {
    json: header.includes('application/json') || header.includes('application/*'),
    sse: header.includes('text/event-stream'),
  };
}

/**
 * The request flow of the Streamable HTTP transport (2025-11-25) on plain `node:http`
 * request/response objects: Host/Origin check, CORS (`HttpCors`), authentication
 * (`HttpAuthentication`), then POST carries one JSON-RPC message, GET opens the session's
 * notification stream, DELETE ends the session. A request is answered with JSON
 * (`HttpResponder`), or with an SSE stream as soon as the call sends a notification and the
 * client accepts `text/event-stream`.
 */
@Injectable()
export class StreamableHttpHandler {
  private readonly logger = new Logger('McpHttp');
  private readonly stateful: boolean;

  constructor(
    @InjectHostingOptions() private readonly options: HostingOptions,
    @InjectProtocolOptions() protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: SessionStore,
    private readonly state: HostState,
    private readonly authentication: HttpAuthentication,
    private readonly cors: HttpCors,
    private readonly responder: HttpResponder,
    private readonly statelessHeaders: StatelessHeaders,
    @InjectSessionRelay() private readonly relay: SessionRelay,
    @InjectSharedStreams() private readonly sharedStreams: SharedStreams,
    private readonly addresses: ClientAddresses,
  ) {
    this.stateful = protocol.mode === 'stateful';
  }

  /** Serves one HTTP request on the MCP path. Never throws. */
  handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): void {
    this.route(req, res).catch((error: unknown) => {
      this.logger.error('Unexpected transport failure', (error as Error)?.stack ?? String(error));
      if (!res.headersSent) this.responder.refuse(res, [500, JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error'], req);
      else res.end();
    });
  }

  /** The host's state, told when a request's answer has left (bound once: nothing allocated per request). */
  private readonly leave = () => this.state.leave();

  private async route(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    // While draining, what belongs to the calls in flight still comes in (a client's answers and
    // cancellations, a stream's resumption, the end of a session); new requests are refused.
    const serving = this.state.accepting || this.state.phase === 'draining';
    const refusal =
      checkOriginAndHost(req.headers, this.security.originHost) ?? (serving ? undefined : HttpMessages.notReady());
    if (refusal) return this.responder.refuse(res, refusal, req);
    if (this.cors.apply(req, res)) return;
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return this.responder.refuse(res, HttpMessages.methodNotAllowed(req.method ?? ''), req);
    }
    const principal = await this.authentication.principalOf(req, res);
    if (!principal) return;
    switch (req.method) {
      case 'POST':
        return this.post(req, res, principal);
      case 'GET':
        return this.get(req, res, principal);
      case 'DELETE':
        return this.delete(req, res, principal);
      default:
        return this.responder.refuse(res, HttpMessages.methodNotAllowed(req.method ?? ''), req);
    }
  }

  private async post(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    principal: McpPrincipal,
  ): Promise<void> {
    const contentType = req.headers['content-type'];
    if (!contentType || !contentType.startsWith('application/json'))
      return this.responder.refuse(res, HttpMessages.unsupportedMediaType(), req);
    const accept = accepts(req.headers.accept);
    if (!accept.json && !accept.sse)
      return this.responder.refuse(res, HttpMessages.notAcceptable('application/json or text/event-stream'), req);

    let parsed: unknown;
    if (req.body !== undefined && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) {
      parsed = req.body; // already parsed by Express middleware (routeThroughExpress)
    } else {
      let body: string;
      try {
        body = await readBody(req, this.options.bodyLimit);
      } catch (error) {
        if (error instanceof BodyTooLargeError)
          return this.responder.refuse(res, HttpMessages.tooLarge(this.options.bodyLimit), req);
        if (error instanceof ClientGoneError) {
          // Nothing was asked yet, and there is no one to answer: not the host's failure.
          this.logger.debug(`A client went away while sending its request (${error.message})`);
          return;
        }
        throw error;
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        return this.responder.refuse(res, HttpMessages.parseError(), req, { principal: principal.id });
      }
    }
    const classified = classify(parsed);
    if ('invalid' in classified) {
      return this.responder.refuse(res, HttpMessages.invalidRequest(classified.invalid), req, {
        principal: principal.id,
        id: classified.id,
      });
    }
    const { kind, message } = classified;
    if (kind === 'request' && !this.state.accepting) return this.responder.refuse(res, HttpMessages.notReady(), req);
    const version = req.headers[VERSION_HEADER];

    // A 2026-07-28 request needs no session, in either mode: its `_meta` says who the client is.
    if (kind !== 'response' && isStatelessRequest(message.params, typeof version === 'string' ? version : undefined)) {
      // The dispatcher serves it on a session made from its `_meta`: this one only says "stateless".
      const session = STATELESS_REQUEST;
      if (kind === 'notification') return this.acceptWithoutAnswer(req, res, kind, message, session, principal);
      return this.answerRequest(req, res, kind, message, session, principal, {}, accept);
    }

    const isInitialize = kind === 'request' && message.method === 'initialize';
    if (!isInitialize && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return this.responder.refuse(res, HttpMessages.unsupportedVersion(version, SUPPORTED_PROTOCOL_VERSIONS), req);
    }

    let session: McpSession;
    const headers: Record<string, string> = {};
    if (!this.stateful) {
      session = new McpSession(undefined, typeof version === 'string' ? version : DEFAULT_HTTP_PROTOCOL_VERSION);
    } else if (isInitialize) {
      // Without authentication every caller is the same principal: count sessions per address instead.
      const address = this.authentication.authenticates ? undefined : this.addresses.of(req);
      const owner = address === undefined ? `principal:${principal.id}` : `address:${address}`;
      const full = this.sessions.refusal(owner);
      if (full?.reason === 'full') return this.responder.refuse(res, HttpMessages.tooManySessions(full.limit), req);
      if (full) {
        const who = address === undefined ? `"${principal.id}"` : `this address (${address})`;
        return this.responder.refuse(res, HttpMessages.tooManyOwnSessions(who, full.limit, full.retryAfterSec), req, {
          headers: { 'retry-after': String(full.retryAfterSec) },
          outcome: 'limited',
          principal: principal.id,
        });
      }
      session = this.sessions.create(principal.id, owner);
      headers[SESSION_HEADER] = session.id!;
    } else {
      const found = await this.findSession(req, res, principal);
      if (!found) return;
      session = found;
    }

    if (kind !== 'request') return this.acceptWithoutAnswer(req, res, kind, message, session, principal);
    return this.answerRequest(req, res, kind, message, session, principal, headers, accept);
  }

  /** A notification or a client's response: dispatched, then acknowledged with 202 and no body. */
  private async acceptWithoutAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    kind: MessageKind,
    message: JsonRpcMessage,
    session: McpSession,
    principal: McpPrincipal,
  ): Promise<void> {
    await this.dispatcher.dispatch(
      kind,
      message,
      this.scope(req, session, principal, () => false),
    );
    const commit = this.sessions.commit(session);
    if (commit && !(await this.committed(commit, session, res, req))) return;
    this.responder.empty(res, 202);
  }

  private async answerRequest(
    req: IncomingMessage,
    res: ServerResponse,
    kind: MessageKind,
    message: JsonRpcMessage,
    session: McpSession,
    principal: McpPrincipal,
    headers: Record<string, string>,
    accept: Accepts,
  ): Promise<void> {
    // The host does not let go of the request before its answer has left (see `HostState`).
    this.state.enter();
    try {
      await this.answer(req, res, kind, message, session, principal, headers, accept);
    } finally {
      if (res.writableFinished || res.destroyed) this.state.leave();
      else res.once('close', this.leave);
    }
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    kind: MessageKind,
    message: JsonRpcMessage,
    session: McpSession,
    principal: McpPrincipal,
    headers: Record<string, string>,
    accept: Accepts,
  ): Promise<void> {
    // With a session, SSE streams are resumable: a dropped connection is not a cancellation, and
    // the client picks up the rest with GET + Last-Event-ID. The priming event (empty data) and
    // letting go of a stream early (SEP-1699) are for 2025-11-25 clients only: older ones cannot
    // parse an event without data, so they get event ids without it.
    const resumable = this.stateful && accept.sse && session.id !== undefined;
    const polling = resumable && supportsPolling(session.protocolVersion);
    let stream: SseStream | undefined;
    let replay: ResumableStream | undefined;
    const openStream = () => {
      if (stream) return;
      stream = new SseStream(res, headers);
      if (resumable) {
        const created = new ResumableStream(randomUUID(), () => session.streams.delete(created.id));
        session.streams.set(created.id, created);
        // Kept where the other replicas find it too, for a reconnection that reaches one of them.
        this.sharedStreams.opened(created, session.id!);
        if (polling) stream.prime(created.primingId, RECONNECT_DELAY_MS);
        created.attach(stream, created.primingId);
        replay = created;
      }
    };
    // Notifications of this request go on its SSE stream when the client accepts one;
    // otherwise to the session's GET stream, if open.
    const notify = (notification: string) => {
      if (accept.sse && (stream || !res.writableEnded)) {
        openStream();
        if (replay) replay.send(notification);
        else stream!.send(notification);
        return true;
      }
      // With replicas sharing the session, its notification stream may be held by another.
      return this.relay.toSession(session, notification);
    };
    const closeStream = () => {
      if (!polling || res.writableEnded) return;
      openStream();
      replay!.release();
    };
    const onLost = resumable
      ? undefined
      : (abort: (reason: Error) => void) => {
          const onClose = () => {
            if (!res.writableFinished) abort(new Error('client disconnected'));
          };
          // A client already gone (e.g. while its body was read) will send no 'close' any more.
          if (req.socket.destroyed) {
            queueMicrotask(onClose);
            return () => undefined;
          }
          res.once('close', onClose);
          return () => res.off('close', onClose);
        };
    const scope = this.scope(req, session, principal, notify, onLost);
    scope.closeStream = closeStream;
    // Only a 2026-07-28 request has headers to check against its body (and errors with an HTTP status of their own).
    if (session.stateless)
      scope.headerMismatch = this.statelessHeaders.check(req.headers, message.method!, message.params, principal);
    const response = await this.dispatcher.dispatch(kind, message, scope);
    // What the request changed of the session (initialize, log level, subscriptions) reaches the
    // other replicas before the client can send them its next request.
    const commit = this.sessions.commit(session);
    if (commit && !(await this.committed(commit, session, res, req))) return;
    if (response === undefined) {
      // The client cancelled the request: it gets no response, and the connection is let go.
      if (replay) replay.finish();
      else if (stream) stream.end();
      else res.writeHead(202, headers).end();
      return;
    }
    if (replay) {
      replay.send(response);
      replay.finish();
    } else if (stream) {
      stream.send(response);
      stream.end();
    } else if (!accept.json) {
      new SseStream(res, headers).send(response);
      res.end();
    } else {
      const status = session.stateless ? (scope.httpStatus ?? 200) : 200;
      this.responder.json(res, status, response, headers[SESSION_HEADER] ? headers : undefined);
    }
  }

  private async get(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): Promise<void> {
    if (!this.stateful || this.speaksStateless(req))
      return this.responder.refuse(res, HttpMessages.methodNotAllowed('GET'), req, { allow: 'POST' });
    if (!accepts(req.headers.accept).sse)
      return this.responder.refuse(res, HttpMessages.notAcceptable('text/event-stream'), req);
    const lastEventId = req.headers['last-event-id'];
    // While draining, only a stream of a call in flight is picked up again.
    if (!this.state.accepting && typeof lastEventId !== 'string')
      return this.responder.refuse(res, HttpMessages.notReady(), req);
    const session = await this.findSession(req, res, principal);
    if (!session) return;
    const resumed = typeof lastEventId === 'string' ? session.streams.get(streamIdOf(lastEventId)) : undefined;
    if (!resumed && typeof lastEventId === 'string') {
      // A stream another replica opened: served from the shared store, then as it goes on.
      if (await this.resumeElsewhere(req, res, session, lastEventId)) return;
    }
    if (resumed?.endedBefore(lastEventId as string)) {
      // Nothing more will come on that stream (it ended, e.g. its request was cancelled): a stream
      // answered and ended at once would only make the client reconnect again.
      this.responder.empty(res, 204);
      return;
    }
    if (resumed) {
      const stream = new SseStream(res, {});
      res.once('close', () => stream.end());
      resumed.attach(stream, lastEventId as string);
      return;
    }
    // A client may hold several GET streams (each message goes on one); a cap keeps one session from holding sockets without end.
    if (session.sinkCount >= MAX_GET_STREAMS)
      return this.responder.refuse(res, HttpMessages.tooManyStreams(MAX_GET_STREAMS), req, {
        outcome: 'limited',
        principal: principal.id,
      });
    const stream = new SseStream(res, {});
    const close = () => stream.end();
    const remove = session.addSink((message: string) => stream.send(message));
    session.cleanups.add(close);
    res.once('close', () => {
      remove();
      session.cleanups.delete(close);
    });
  }

  /** Serves a reconnection to another replica's stream; `false` when no replica has it (the caller opens a new stream). */
  private async resumeElsewhere(
    req: IncomingMessage,
    res: ServerResponse,
    session: McpSession,
    lastEventId: string,
  ): Promise<boolean> {
    const streamId = streamIdOf(lastEventId);
    const seen = Number(lastEventId.slice(lastEventId.lastIndexOf('_') + 1));
    let stream: SseStream | undefined;
    const sink = {
      event: (id: string, data: string) => (stream ??= new SseStream(res, {})).event(id, data),
      end: () => (stream ??= new SseStream(res, {})).end(),
    };
    try {
      const outcome = await this.sharedStreams.resume(
        streamId,
        session.id!,
        Number.isFinite(seen) ? seen : 0,
        sink,
        (listener) => res.once('close', listener),
      );
      if (outcome === 'unknown') return false;
      if (outcome === 'ended') this.responder.empty(res, 204);
      else stream ??= new SseStream(res, {});
      return true;
    } catch (error) {
      this.logger.warn(`cannot resume stream ${streamId} from the shared store: ${(error as Error).message}`);
      if (!res.headersSent) this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
      else res.end();
      return true;
    }
  }

  private async delete(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): Promise<void> {
    if (!this.stateful || this.speaksStateless(req))
      return this.responder.refuse(res, HttpMessages.methodNotAllowed('DELETE'), req, { allow: 'POST' });
    const session = await this.findSession(req, res, principal);
    if (!session) return;
    try {
      await this.sessions.end(session.id!, 'session ended by the client');
    } catch (error) {
      this.logger.warn(`cannot end session ${session.id} in the shared store: ${(error as Error).message}`);
      return this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
    }
    this.responder.empty(res, 200);
  }

  /**
   * Waits for the store to keep what the request changed of `session` (`SessionStore.commit`);
   * when the shared store cannot be reached, answers 503 (an initialize the other replicas cannot
   * see would give the client a session they do not know) and says `false`.
   */
  private async committed(
    commit: Promise<void>,
    session: McpSession,
    res: ServerResponse,
    req: IncomingMessage,
  ): Promise<boolean> {
    try {
      await commit;
      return true;
    } catch (error) {
      this.logger.warn(`cannot write session ${session.id} to the shared store: ${(error as Error).message}`);
      if (!res.headersSent) this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
      else res.end();
      return false;
    }
  }

  /** A GET or DELETE of a 2026-07-28 client: that revision has no GET stream and no session to end. */
  private speaksStateless(req: IncomingMessage): boolean {
    const version = req.headers[VERSION_HEADER];
    return typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version) && isStatelessVersion(version);
  }

  /**
   * The session named by the request's header; answers 400/404 itself when there is none. A
   * session belongs to the principal that opened it: anyone else gets 404, as for a stranger's id.
   * With replicas sharing sessions it is read from the shared store; when that cannot be reached
   * the request is refused (503), never served from what this replica last saw.
   */
  private async findSession(
    req: IncomingMessage,
    res: ServerResponse,
    principal: McpPrincipal,
  ): Promise<McpSession | undefined> {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== 'string' || !id) {
      this.responder.refuse(res, HttpMessages.missingSession(), req);
      return undefined;
    }
    let session: McpSession | undefined;
    try {
      session = await this.sessions.resolve(id);
    } catch (error) {
      this.logger.warn(`cannot read session ${id} from the shared store: ${(error as Error).message}`);
      this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
      return undefined;
    }
    if (!session || session.principalId !== principal.id) {
      this.responder.refuse(res, HttpMessages.unknownSession(), req);
      return undefined;
    }
    return session;
  }

  private scope(
    req: IncomingMessage,
    session: McpSession,
    principal: McpPrincipal,
    notify: DispatchScope['notify'],
    onLost?: DispatchScope['onLost'],
  ): DispatchScope {
    return {
      session,
      transport: 'http',
      principal,
      headers: req.headers,
      remoteAddress: this.addresses.of(req),
      notify,
      onLost,
    };
  }
}
