import { JsonRpcError, STATELESS_PROTOCOL_VERSION, type McpPrincipal, type McpTransportKind } from '#libs/core';
import { envelopeVersionOf, readEnvelope } from '../eras/request-envelope';
import { McpSession } from '../sessions/mcp-session';
import type { JsonRpcId, JsonRpcMessage, MessageKind } from '../wire/json-rpc';
import type { McpEra } from '../wire/mcp-method.table';

/** The headers of a request, as Node gives them (stdio and in-process requests have none). */
export type McpRequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * One JSON-RPC message as a transport hands it to the engine, whichever transport: what it is,
 * who sent it, on what session, and over what. Made once (`mcpRequest`) and never written on:
 * what the engine answers goes back through the request's `ReplyChannel`, and what a call needs
 * beyond it (its input round, its task) it is given by the call, not by the request.
 */
export interface McpRequest {
  readonly kind: MessageKind;
  readonly message: JsonRpcMessage;
  /** The JSON-RPC id of a request (`null` for a notification or a response). */
  readonly id: JsonRpcId | null;
  /** The method of a request or notification (`null` for a response). */
  readonly method: string | null;
  /** Its params (`{}` when it has none). */
  readonly params: Record<string, unknown>;
  /** The protocol era it speaks (its session's). */
  readonly era: McpEra;
  /**
   * The session it is served on: the client's (a 2025 session, stdio), one made for it alone (a
   * 2025 request to a stateless host, an in-process call), or one made from its `_meta`
   * (2026-07-28: `session.stateless`, no id).
   */
  readonly session: McpSession;
  readonly principal: McpPrincipal;
  readonly transport: McpTransportKind;
  readonly headers: McpRequestHeaders;
  /** The client's network address (HTTP). */
  readonly remoteAddress: string | undefined;
  /**
   * What is wrong with it, found while it was read (a 2026-07-28 `_meta` envelope that is missing
   * or malformed, an HTTP header that disagrees with the body): answered instead of served.
   */
  readonly problem: JsonRpcError | undefined;
}

/** What a transport knows of a message when it hands it on. */
export interface McpRequestParts {
  kind: MessageKind;
  message: JsonRpcMessage;
  /** The session the transport found for it (for a 2026-07-28 request, any: its `_meta` says who the client is). */
  session: McpSession;
  principal: McpPrincipal;
  transport: McpTransportKind;
  headers: McpRequestHeaders;
  remoteAddress?: string;
  /** Where the transport's copies of the request disagree with the body (2026-07-28 HTTP headers). */
  headerMismatch?: JsonRpcError;
}

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The request a transport's message makes. A stateless (2026-07-28) one — its transport said so
 * with its session, or its `_meta` names a version — is served on a session of its own, made from
 * its `_meta`; a problem with that `_meta` (or `headerMismatch`) is kept as its `problem`.
 */
export function mcpRequest(parts: McpRequestParts): McpRequest {
  const { kind, message, principal } = parts;
  let session = parts.session;
  let problem: JsonRpcError | undefined;
  if (kind === 'request' && (session.stateless || envelopeVersionOf(message.params) !== undefined)) {
    try {
      if (parts.headerMismatch) throw parts.headerMismatch;
      session = McpSession.forRequest(readEnvelope(message.params), principal.id);
    } catch (error) {
      if (!(error instanceof JsonRpcError)) throw error;
      problem = error;
      if (!session.stateless) session = new McpSession(undefined, STATELESS_PROTOCOL_VERSION);
    }
  }
  return {
    kind,
    message,
    id: kind === 'request' ? message.id! : (message.id ?? null),
    method: message.method ?? null,
    params: message.params ?? NO_PARAMS,
    era: session.stateless ? 'stateless' : 'session',
    session,
    principal,
    transport: parts.transport,
    headers: parts.headers,
    remoteAddress: parts.remoteAddress,
    problem,
  };
}
