import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { DEFAULT_HTTP_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type McpPrincipal } from '#libs/core';
import { Authenticator, type AuditOutcome, type AuthRefusal } from '#libs/security';
import { protectedResourceMetadataUrl } from './protected-resource-metadata';
import { McpDispatcher, type DispatchScope } from '#libs/protocol';
import { classify, errorResponse, PARSE_ERROR_RESPONSE, type JsonRpcMessage, type MessageKind } from '#libs/protocol';
import { HostState } from '#libs/protocol';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { McpSession } from '#libs/protocol';
import { ResumableStream, streamIdOf } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { AuthFailureLimiter } from '#libs/security';
import { BodyTooLargeError, readBody } from './body-reader';
import { HttpMessages, type HttpRefusal } from './http.messages';
import { checkOriginAndHost } from '#libs/security';
import { SseStream } from './sse-stream';
import { outcomeOfStatus, RequestTelemetry } from '#libs/protocol';

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
/** Sent with every MCP response: no sniffing, no caching of results. */
const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
const JSON_HEADERS = { 'content-type': 'application/json', ...SECURITY_HEADERS };
/** Most GET (standalone notification) streams one session may hold open at once. */
const MAX_GET_STREAMS = 8;
/** How long a client waits before reconnecting to a stream the server closed (SSE `retry`). */
const RECONNECT_DELAY_MS = 500;

/** What a refusal adds to its status line: headers, the `Allow` of a 405, and what the audit trail records. */
interface RefusalExtras {
  headers?: Record<string, string>;
  allow?: string;
  outcome?: AuditOutcome;
  principal?: string;
}

interface Accepts {
  json: boolean;
  sse: boolean;
}

/** The first revision with SSE priming events and server-initiated disconnection (SEP-1699). */
const POLLING_SINCE = '2025-11-25';

/** Whether a client of this revision understands priming events (revisions are ISO dates, so they sort as text). */
function supportsPolling(protocolVersion: string): boolean {
  return protocolVersion >= POLLING_SINCE;
}

function accepts(header: string | undefined): Accepts {
  if (!header || header.includes('*/*')) return { json: true, sse: true };
  return { json: header.includes('application/json') || header.includes('application/*'), sse: header.includes('text/event-stream') };
}

/**
 * The Streamable HTTP transport (2025-11-25) on plain `node:http` request/response objects:
 * POST carries one JSON-RPC message; GET opens the session's notification stream; DELETE ends
 * the session. A request is answered with JSON, or with an SSE stream as soon as the call
 * sends a notification and the client accepts `text/event-stream`.
 */
@Injectable()
export class StreamableHttpHandler {
  private readonly logger = new Logger('McpHttp');
  private readonly stateful: boolean;
  private readonly resourceMetadataUrl: string | undefined;

  constructor(
    @InjectHostingOptions() private readonly options: HostingOptions,
    @InjectProtocolOptions() protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: SessionStore,
    private readonly state: HostState,
    private readonly authenticator: Authenticator,
    private readonly telemetry: RequestTelemetry,
    private readonly authFailures: AuthFailureLimiter,
  ) {
    this.stateful = protocol.mode === 'stateful';
    this.resourceMetadataUrl = security.auth.mode === 'oauth' ? protectedResourceMetadataUrl(security.auth.resource) : undefined;
  }

  /** Serves one HTTP request on the MCP path. Never throws. */
  handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): void {
    this.route(req, res).catch((error: unknown) => {
      this.logger.error('Unexpected transport failure', (error as Error)?.stack ?? String(error));
      if (!res.headersSent) this.refuse(res, [500, -32603, 'Internal error'], req);
      else res.end();
    });
  }

  private async route(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const refusal = checkOriginAndHost(req.headers, this.security.originHost) ?? (this.state.accepting ? undefined : HttpMessages.notReady());
    if (refusal) return this.refuse(res, refusal, req);
    if (this.applyCors(req, res)) return;
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return this.refuse(res, HttpMessages.methodNotAllowed(req.method ?? ''), req);
    }
    let principal = this.authenticator.unauthenticated;
    if (this.authenticator.mode !== 'none') {
      const address = req.socket.remoteAddress ?? 'unknown';
      const wait = this.authFailures.retryAfter(address);
      if (wait > 0) {
        res.setHeader('retry-after', String(wait));
        return this.refuse(res, HttpMessages.tooManyAuthFailures(wait), req);
      }
      const auth = await this.authenticator.authenticate(req.headers);
      if (!auth.ok) {
        if (auth.error === 'invalid_token') this.authFailures.fail(address);
        return this.refuseAuth(res, auth, req);
      }
      principal = auth.principal;
    }
    switch (req.method) {
      case 'POST':
        return this.post(req, res, principal);
      case 'GET':
        return this.get(req, res, principal);
      case 'DELETE':
        return this.delete(req, res, principal);
      default:
        return this.refuse(res, HttpMessages.methodNotAllowed(req.method ?? ''), req);
    }
  }

  private async post(req: IncomingMessage & { body?: unknown }, res: ServerResponse, principal: McpPrincipal): Promise<void> {
    const contentType = req.headers['content-type'];
    if (!contentType || !contentType.startsWith('application/json')) return this.refuse(res, HttpMessages.unsupportedMediaType(), req);
    const accept = accepts(req.headers.accept);
    if (!accept.json && !accept.sse) return this.refuse(res, HttpMessages.notAcceptable('application/json or text/event-stream'), req);

    let parsed: unknown;
    if (req.body !== undefined && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) {
      parsed = req.body; // already parsed by Express middleware (routeThroughExpress)
    } else {
      let body: string;
      try {
        body = await readBody(req, this.options.bodyLimit);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return this.refuse(res, HttpMessages.tooLarge(this.options.bodyLimit), req);
        throw error;
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        return this.reply(res, 400, PARSE_ERROR_RESPONSE);
      }
    }
    const classified = classify(parsed);
    if ('invalid' in classified) return this.reply(res, 400, errorResponse(classified.id, -32600, `Invalid Request: ${classified.invalid}`));
    const { kind, message } = classified;

    const isInitialize = kind === 'request' && message.method === 'initialize';
    const version = req.headers[VERSION_HEADER];
    if (!isInitialize && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return this.refuse(res, HttpMessages.unsupportedVersion(version, SUPPORTED_PROTOCOL_VERSIONS), req);
    }

    let session: McpSession;
    const headers: Record<string, string> = {};
    if (!this.stateful) {
      session = new McpSession(undefined, typeof version === 'string' ? version : DEFAULT_HTTP_PROTOCOL_VERSION);
    } else if (isInitialize) {
      // Without authentication every caller is the same principal: count sessions per address instead.
      const owner = this.authenticator.mode === 'none' ? `address:${req.socket.remoteAddress}` : `principal:${principal.id}`;
      const full = this.sessions.refusal(owner);
      if (full?.reason === 'full') return this.refuse(res, HttpMessages.tooManySessions(full.limit), req);
      if (full) {
        const who = this.authenticator.mode === 'none' ? `this address (${req.socket.remoteAddress})` : `"${principal.id}"`;
        return this.refuse(res, HttpMessages.tooManyOwnSessions(who, full.limit, full.retryAfterSec), req, {
          headers: { 'retry-after': String(full.retryAfterSec) },
          outcome: 'limited',
          principal: principal.id,
        });
      }
      session = this.sessions.create(principal.id, owner);
      headers[SESSION_HEADER] = session.id!;
    } else {
      const found = this.findSession(req, res, principal);
      if (!found) return;
      session = found;
    }

    if (kind !== 'request') {
      await this.dispatcher.dispatch(kind, message, this.scope(req, session, principal, () => false));
      res.writeHead(202).end();
      return;
    }
    return this.answerRequest(req, res, kind, message, session, principal, headers, accept);
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
    // With a session, SSE streams are resumable: a dropped connection is not a cancellation, and
    // the client picks up the rest with GET + Last-Event-ID. The priming event (empty data) and
    // letting go of a stream early (SEP-1699) are for 2025-11-25 clients only: older ones cannot
    // parse an event without data, so they get event ids without it.
    const resumable = this.stateful && accept.sse;
    const polling = resumable && supportsPolling(session.protocolVersion);
    let stream: SseStream | undefined;
    let replay: ResumableStream | undefined;
    const openStream = () => {
      if (stream) return;
      stream = new SseStream(res, headers);
      if (resumable) {
        const created = new ResumableStream(randomUUID(), () => session.streams.delete(created.id));
        session.streams.set(created.id, created);
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
      session.sink?.(notification);
      return session.sink !== undefined;
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
          res.once('close', onClose);
          return () => res.off('close', onClose);
        };
    const response = await this.dispatcher.dispatch(kind, message, { ...this.scope(req, session, principal, notify, onLost), closeStream });
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
    } else if (res.hasHeader('access-control-allow-origin')) {
      res.writeHead(200, { ...JSON_HEADERS, ...headers, 'content-length': Buffer.byteLength(response) }).end(response);
    } else {
      const length = String(Buffer.byteLength(response));
      const sessionId = headers[SESSION_HEADER];
      // Flat header arrays skip Node's header-object processing on this hot path.
      const base = ['content-type', 'application/json', 'content-length', length, 'x-content-type-options', 'nosniff', 'cache-control', 'no-store'];
      res.writeHead(200, sessionId ? [...base, SESSION_HEADER, sessionId] : base);
      res.end(response);
    }
  }

  private get(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): void {
    if (!this.stateful) return this.refuse(res, HttpMessages.methodNotAllowed('GET'), req, { allow: 'POST' });
    if (!accepts(req.headers.accept).sse) return this.refuse(res, HttpMessages.notAcceptable('text/event-stream'), req);
    const session = this.findSession(req, res, principal);
    if (!session) return;
    const lastEventId = req.headers['last-event-id'];
    const resumed = typeof lastEventId === 'string' ? session.streams.get(streamIdOf(lastEventId)) : undefined;
    if (resumed?.endedBefore(lastEventId as string)) {
      // Nothing more will come on that stream (it ended, e.g. its request was cancelled): a stream
      // answered and ended at once would only make the client reconnect again.
      res.writeHead(204, SECURITY_HEADERS).end();
      return;
    }
    if (resumed) {
      const stream = new SseStream(res, {});
      res.once('close', () => stream.end());
      resumed.attach(stream, lastEventId as string);
      return;
    }
    // A client may hold several GET streams (each message goes on one); a cap keeps one session from holding sockets without end.
    if (session.sinkCount >= MAX_GET_STREAMS) return this.refuse(res, HttpMessages.tooManyStreams(MAX_GET_STREAMS), req, { outcome: 'limited', principal: principal.id });
    const stream = new SseStream(res, {});
    const close = () => stream.end();
    const remove = session.addSink((message: string) => stream.send(message));
    session.cleanups.add(close);
    res.once('close', () => {
      remove();
      session.cleanups.delete(close);
    });
  }

  private delete(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): void {
    if (!this.stateful) return this.refuse(res, HttpMessages.methodNotAllowed('DELETE'), req, { allow: 'POST' });
    const session = this.findSession(req, res, principal);
    if (!session) return;
    this.sessions.delete(session.id!, 'session ended by the client');
    res.writeHead(200).end();
  }

  /**
   * The session named by the request's header; answers 400/404 itself when there is none. A
   * session belongs to the principal that opened it: anyone else gets 404, as for a stranger's id.
   */
  private findSession(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): McpSession | undefined {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== 'string' || !id) {
      this.refuse(res, HttpMessages.missingSession(), req);
      return undefined;
    }
    const session = this.sessions.get(id);
    if (!session || session.principalId !== principal.id) {
      this.refuse(res, HttpMessages.unknownSession(), req);
      return undefined;
    }
    return session;
  }

  private scope(req: IncomingMessage, session: McpSession, principal: McpPrincipal, notify: DispatchScope['notify'], onLost?: DispatchScope['onLost']): DispatchScope {
    return { session, transport: 'http', principal, headers: req.headers, remoteAddress: req.socket.remoteAddress, notify, onLost };
  }

  /**
   * Adds CORS headers for a configured origin, and answers its preflight; returns true when the
   * request was a preflight (and is answered).
   */
  private applyCors(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    const cors = this.options.cors;
    if (!cors || !origin || !cors.origins.has(origin.toLowerCase())) return false;
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after');
    if (req.method !== 'OPTIONS') return false;
    res.writeHead(204, {
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id, traceparent, tracestate, baggage',
      'access-control-max-age': String(cors.maxAgeSec),
    });
    res.end();
    return true;
  }

  /** 401/403 with `WWW-Authenticate` as RFC 6750 and RFC 9728 describe it. */
  private refuseAuth(res: ServerResponse, refusal: AuthRefusal, req: IncomingMessage): void {
    const params = [
      ...(this.resourceMetadataUrl ? [`resource_metadata="${this.resourceMetadataUrl}"`] : ['realm="mcp"']),
      ...(refusal.error ? [`error="${refusal.error}"`, `error_description="${refusal.description.replace(/"/g, "'")}"`] : []),
      ...(refusal.scope?.length ? [`scope="${refusal.scope.join(' ')}"`] : []),
    ];
    res.setHeader('www-authenticate', `Bearer ${params.join(', ')}`);
    this.refuse(res, [refusal.status, -32001, refusal.status === 401 ? `Unauthorized: ${refusal.description}` : `Forbidden: ${refusal.description}`], req);
  }

  private reply(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body) }).end(body);
  }

  private refuse(res: ServerResponse, [status, code, message]: HttpRefusal, req?: IncomingMessage, extra: RefusalExtras = {}): void {
    const headers: Record<string, string> = { ...JSON_HEADERS, ...extra.headers };
    if (status === 405) headers.allow = extra.allow ?? 'GET, POST, DELETE';
    if (status === 503) headers['retry-after'] = '5';
    // A refused request's unread body must not be parsed as the connection's next request.
    if (status === 413 || status === 403) headers.connection = 'close';
    res.writeHead(status, headers).end(errorResponse(null, code, message));
    if (req && !req.complete) req.resume();
    this.telemetry.refusal(extra.outcome ?? outcomeOfStatus(status), status, message, 'http', req?.socket.remoteAddress, extra.principal);
  }
}
