import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { API_SECURITY_HEADERS, API_SECURITY_HEADER_LIST, ClientAddresses, type AuditOutcome } from '#libs/security';
import { errorResponse, outcomeOfStatus, RequestEvents, type JsonRpcId } from '#libs/protocol';
import type { HttpRefusal } from './http.messages';
import { bodyStillComing, endAfterBody } from './body-drain';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json', ...API_SECURITY_HEADERS });

/** What a refusal adds to its status line: headers, the `Allow` of a 405, and what the audit trail records. */
export interface RefusalExtras {
  headers?: Record<string, string>;
  allow?: string;
  outcome?: AuditOutcome;
  principal?: string;
  /** The id of the JSON-RPC request refused, when it could be read. */
  id?: JsonRpcId | null;
}

/**
 * Writes the MCP endpoint's JSON answers and refusals, with the security headers, and reports
 * every refusal as a request event (metrics, audit).
 */
@Injectable()
export class HttpResponder {
  constructor(
    private readonly events: RequestEvents,
    private readonly addresses: ClientAddresses,
  ) {}

  /** A JSON-RPC response as `application/json`, with extra headers (a new session's id, CORS). */
  json(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
    if (!headers && !res.hasHeader('access-control-allow-origin')) {
      // Flat header arrays skip Node's header-object processing on this hot path.
      res.writeHead(status, [
        'content-type',
        'application/json',
        'content-length',
        String(Buffer.byteLength(body)),
        ...API_SECURITY_HEADER_LIST,
      ]);
    } else {
      res.writeHead(status, { ...JSON_HEADERS, ...headers, 'content-length': Buffer.byteLength(body) });
    }
    res.end(body);
  }

  /** An empty answer with the security headers (202 for notifications, 204 for a stream with nothing left). */
  empty(res: ServerResponse, status: number, headers?: Record<string, string>): void {
    res.writeHead(status, { ...API_SECURITY_HEADERS, ...headers }).end();
  }

  /** A transport-level refusal: status, a JSON-RPC error body, and a refusal event. */
  refuse(
    res: ServerResponse,
    [status, code, message]: HttpRefusal,
    req?: IncomingMessage,
    extra: RefusalExtras = {},
  ): void {
    const headers: Record<string, string | number> = { ...JSON_HEADERS, ...extra.headers };
    if (status === 405) headers.allow = extra.allow ?? 'GET, POST, DELETE';
    if (status === 503) headers['retry-after'] = '5';
    const body = errorResponse(extra.id ?? null, code, message);
    // A refused request's unread body must not be parsed as the connection's next request: the
    // connection closes. Not at once while the body still comes, though — the client, still
    // writing it, would get a reset instead of this answer: the answer is sent whole, the rest of
    // the body read and dropped (within a bound), then the connection closes.
    const unread = req !== undefined && bodyStillComing(req);
    if (status === 413 || status === 403 || unread) headers.connection = 'close';
    if (!unread) res.writeHead(status, headers).end(body);
    else {
      res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) }).write(body);
      endAfterBody(req!, res);
    }
    this.events.refusal({
      outcome: extra.outcome ?? outcomeOfStatus(status),
      status,
      message,
      transport: 'http',
      remoteAddress: req && this.addresses.of(req),
      principal: extra.principal,
    });
  }
}
