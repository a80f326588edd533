import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import {
  DEFAULT_HTTP_PROTOCOL_VERSION,
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
  McpDispatcher,
  mcpRequest,
  McpSession,
  type ProtocolOptions,
} from '#libs/protocol';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { accepts } from './accepts';
import { BodyTooLargeError, ClientGoneError, readBody } from './body-reader';
import { HttpAuthentication } from './http-authentication';
import { HttpCors } from './http-cors';
import { speaksStateless } from './http-era';
import { HttpReplies } from './http-reply';
import { HttpResponder } from './http-responder';
import { HttpSessions } from './http-sessions';
import { HttpMessages } from './http.messages';
import { NotificationStreams } from './notification-streams';
import { StatelessHeaders, VERSION_HEADER } from './stateless-headers';

/**
 * Who calls, for an endpoint at another path that serves through this one (a composed virtual
 * server): given the request, how the MCP endpoint authenticates it and how it refuses (recorded
 * as its refusals are), the caller — or `undefined` when the request was refused.
 */
export type McpHttpCaller = (
  req: IncomingMessage,
  res: ServerResponse,
  authenticate: () => Promise<McpPrincipal | undefined>,
  refuse: (status: number, message: string, headers?: Record<string, string>) => void,
) => Promise<McpPrincipal | undefined>;

/** What a 2026-07-28 request is handed to the dispatcher with (it never holds state: see `mcpRequest`). */
const STATELESS_REQUEST = new McpSession(undefined, STATELESS_PROTOCOL_VERSION);

/**
 * The request flow of the Streamable HTTP transport on plain `node:http` request/response
 * objects: Host/Origin check, CORS (`HttpCors`), authentication (`HttpAuthentication`), then POST
 * carries one JSON-RPC message (answered through its `HttpReply`), GET opens a session's stream
 * (`NotificationStreams`), DELETE ends the session (`HttpSessions`). Which revision a request
 * speaks is decided in one place (`speaksStateless`).
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
    private readonly state: HostState,
    private readonly authentication: HttpAuthentication,
    private readonly cors: HttpCors,
    private readonly responder: HttpResponder,
    private readonly statelessHeaders: StatelessHeaders,
    private readonly sessions: HttpSessions,
    private readonly replies: HttpReplies,
    private readonly streams: NotificationStreams,
    private readonly addresses: ClientAddresses,
  ) {
    this.stateful = protocol.mode === 'stateful';
  }

  /**
   * Serves one HTTP request on the MCP path (or on a composed server's, whose `caller` decides
   * who calls). Never throws.
   */
  handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse, caller?: McpHttpCaller): void {
    this.route(req, res, caller).catch((error: unknown) => {
      this.logger.error('Unexpected transport failure', (error as Error)?.stack ?? String(error));
      if (!res.headersSent) this.responder.refuse(res, [500, JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error'], req);
      else res.end();
    });
  }

  private async route(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    caller: McpHttpCaller | undefined,
  ): Promise<void> {
    // While draining, what belongs to the calls in flight still comes in (a client's answers and
    // cancellations, a stream's resumption, the end of a session); new requests are refused.
    const serving = this.state.accepting || this.state.phase === 'draining';
    const refusal =
      checkOriginAndHost(req, this.security.originHost) ?? (serving ? undefined : HttpMessages.notReady());
    if (refusal) return this.responder.refuse(res, refusal, req);
    if (this.cors.apply(req, res)) return;
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return this.responder.refuse(res, HttpMessages.methodNotAllowed(req.method ?? ''), req);
    }
    const principal = caller
      ? await caller(
          req,
          res,
          () => this.authentication.principalOf(req, res),
          (status, message, headers) =>
            this.responder.refuse(res, [status, JsonRpcErrorCode.TRANSPORT_REFUSED, message], req, { headers }),
        )
      : await this.authentication.principalOf(req, res);
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
    const accepted = accepts(req.headers.accept);
    if (!accepted.json && !accepted.sse)
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

    // A 2026-07-28 message needs no session, in either mode: its `_meta` says who the client is.
    const stateless = kind !== 'response' && speaksStateless(req.headers, message.params);
    let session = STATELESS_REQUEST;
    let headers: Record<string, string> | undefined;
    if (!stateless) {
      const version = req.headers[VERSION_HEADER];
      const isInitialize = kind === 'request' && message.method === 'initialize';
      if (!isInitialize && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return this.responder.refuse(res, HttpMessages.unsupportedVersion(version, SUPPORTED_PROTOCOL_VERSIONS), req);
      if (!this.stateful) {
        session = new McpSession(undefined, typeof version === 'string' ? version : DEFAULT_HTTP_PROTOCOL_VERSION);
      } else if (isInitialize) {
        const opened = this.sessions.open(req, res, principal);
        if (!opened) return;
        ({ session, headers } = opened);
      } else {
        const found = await this.sessions.find(req, res, principal);
        if (!found) return;
        session = found;
      }
    }
    const request = mcpRequest({
      kind,
      message,
      session,
      principal,
      transport: 'http',
      headers: req.headers,
      remoteAddress: this.addresses.of(req),
      // Only a 2026-07-28 request has headers to check against its body (and errors with an HTTP status of their own).
      headerMismatch:
        stateless && kind === 'request'
          ? this.statelessHeaders.check(req.headers, message.method!, message.params, principal)
          : undefined,
    });
    // The host does not let go of a request before its answer has left (see `RequestLife`).
    await this.dispatcher.dispatch(request, this.replies.open(req, res, session, accepted, headers));
  }

  private async get(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): Promise<void> {
    if (!this.stateful || speaksStateless(req.headers))
      return this.responder.refuse(res, HttpMessages.methodNotAllowed('GET'), req, { allow: 'POST' });
    if (!accepts(req.headers.accept).sse)
      return this.responder.refuse(res, HttpMessages.notAcceptable('text/event-stream'), req);
    // While draining, only a stream of a call in flight is picked up again.
    if (!this.state.accepting && typeof req.headers['last-event-id'] !== 'string')
      return this.responder.refuse(res, HttpMessages.notReady(), req);
    const session = await this.sessions.find(req, res, principal);
    if (session) await this.streams.serve(req, res, session, principal);
  }

  private async delete(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): Promise<void> {
    if (!this.stateful || speaksStateless(req.headers))
      return this.responder.refuse(res, HttpMessages.methodNotAllowed('DELETE'), req, { allow: 'POST' });
    const session = await this.sessions.find(req, res, principal);
    if (session && (await this.sessions.end(session, req, res))) this.responder.empty(res, 200);
  }
}
