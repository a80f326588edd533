import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import { ClientAddresses } from '#libs/security';
import { McpSession, SessionStore } from '#libs/protocol';
import { HttpAuthentication } from './http-authentication';
import { HttpResponder } from './http-responder';
import { HttpMessages } from './http.messages';

export const SESSION_HEADER = 'mcp-session-id';

/**
 * The sessions of the Streamable HTTP transport (stateful mode): opened by `initialize` under the
 * limits per owner, found by the `Mcp-Session-Id` header for their principal alone, written back
 * (`commit`) before the client hears the answer, ended by DELETE. Where a session cannot be had it
 * answers the HTTP request itself (400, 404, 429, 503) and gives `undefined`.
 */
@Injectable()
export class HttpSessions {
  private readonly logger = new Logger('McpHttp');

  constructor(
    private readonly sessions: SessionStore,
    private readonly authentication: HttpAuthentication,
    private readonly responder: HttpResponder,
    private readonly addresses: ClientAddresses,
  ) {}

  /**
   * A new session for an `initialize`: its id goes back in the header `headers` gets. Without
   * authentication every caller is the same principal, so sessions are counted per address.
   */
  open(
    req: IncomingMessage,
    res: ServerResponse,
    principal: McpPrincipal,
  ): { session: McpSession; headers: Record<string, string> } | undefined {
    const address = this.authentication.authenticates ? undefined : this.addresses.of(req);
    const owner = address === undefined ? `principal:${principal.id}` : `address:${address}`;
    const full = this.sessions.refusal(owner);
    if (full?.reason === 'full') {
      this.responder.refuse(res, HttpMessages.tooManySessions(full.limit), req);
      return undefined;
    }
    if (full) {
      const who = address === undefined ? `"${principal.id}"` : `this address (${address})`;
      this.responder.refuse(res, HttpMessages.tooManyOwnSessions(who, full.limit, full.retryAfterSec), req, {
        headers: { 'retry-after': String(full.retryAfterSec) },
        outcome: 'limited',
        principal: principal.id,
      });
      return undefined;
    }
    const session = this.sessions.create(principal.id, owner);
    return { session, headers: { [SESSION_HEADER]: session.id! } };
  }

  /**
   * The session named by the request's header; answers 400/404 itself when there is none. A
   * session belongs to the principal that opened it: anyone else gets 404, as for a stranger's id.
   * With replicas sharing sessions it is read from the shared store; when that cannot be reached
   * the request is refused (503), never served from what this replica last saw.
   */
  async find(req: IncomingMessage, res: ServerResponse, principal: McpPrincipal): Promise<McpSession | undefined> {
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

  /**
   * Writes what a request changed of `session` where the other replicas read it, before its
   * client hears the answer (and can send them its next request). When that cannot be done it
   * answers 503 (an initialize the other replicas cannot see would give the client a session they
   * do not know) and says `false`. `true` at once where there is nothing to share.
   */
  commit(session: McpSession, req: IncomingMessage, res: ServerResponse): true | Promise<boolean> {
    const committed = this.sessions.commit(session);
    if (!committed) return true;
    return committed.then(
      () => true,
      (error: Error) => {
        this.logger.warn(`cannot write session ${session.id} to the shared store: ${error.message}`);
        if (!res.headersSent) this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
        else res.end();
        return false;
      },
    );
  }

  /** Ends the session on every replica (DELETE); answers 503 itself when the shared store cannot be reached. */
  async end(session: McpSession, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    try {
      await this.sessions.end(session.id!, 'session ended by the client');
      return true;
    } catch (error) {
      this.logger.warn(`cannot end session ${session.id} in the shared store: ${(error as Error).message}`);
      this.responder.refuse(res, HttpMessages.sharedStateUnavailable(), req);
      return false;
    }
  }
}
