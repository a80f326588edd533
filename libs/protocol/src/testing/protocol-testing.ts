import { LATEST_PROTOCOL_VERSION, type McpCallKind, type McpPrincipal } from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import type { RequestNote } from '../events/request-note';
import type { AdmittedCall } from '../admission/admitted-call';
import { mcpRequest, type McpRequest, type McpRequestParts } from '../requests/mcp-request';
import type { McpAnswer, ReplyChannel } from '../requests/reply-channel';
import { requestNoteOf } from '../requests/request-note-of';
import { McpSession } from '../sessions/mcp-session';
import type { JsonRpcId, JsonRpcMessage, MessageKind } from '../wire/json-rpc';

/** For the protocol specs only (nothing outside the specs imports this folder). */

/** A caller with no scopes or roles. */
export const principal = (id: string): McpPrincipal => ({ id, scopes: [], roles: [], claims: {} });

/**
 * A transport's way back, kept in memory: what it was sent, what it was answered, and the calls
 * that watch for the request to be lost (`lose` loses it).
 */
export class RecordingReply implements ReplyChannel {
  readonly sent: string[] = [];
  readonly answers: McpAnswer[] = [];
  readonly watchers = new Set<(reason: Error) => void>();
  released = 0;

  /** @param delivers what `send` says (`false`: a transport that cannot deliver) */
  constructor(private readonly delivers = true) {}

  send(message: string): boolean {
    this.sent.push(message);
    return this.delivers;
  }

  answer(answer: McpAnswer): Promise<void> {
    this.answers.push(answer);
    return Promise.resolve();
  }

  onLost(abort: (reason: Error) => void): () => void {
    this.watchers.add(abort);
    return () => this.watchers.delete(abort);
  }

  release(): void {
    this.released++;
  }

  /** What was sent, parsed. */
  get messages(): Record<string, unknown>[] {
    return this.sent.map((message) => JSON.parse(message) as Record<string, unknown>);
  }

  /** Loses the request, as a transport whose client went away. */
  lose(reason = new Error('client disconnected')): void {
    for (const abort of [...this.watchers]) abort(reason);
  }
}

/** Who sends a message and on what: the parts of an `McpRequest` besides the message. */
export type RequestOrigin = Omit<McpRequestParts, 'kind' | 'message'>;

/**
 * The origin of a request of `who` on an opened session (`sessionId` `null`: no session, as a
 * stateless 2025 request or a 2026-07-28 one).
 */
export function originOf(who = 'alice', sessionId: string | null = 'session-1', session?: McpSession): RequestOrigin {
  const own = session ?? new McpSession(sessionId ?? undefined, LATEST_PROTOCOL_VERSION);
  if (!session) own.opened = true;
  return { session: own, transport: 'http', principal: principal(who), headers: {}, remoteAddress: '127.0.0.1' };
}

/** The message as a transport would hand it on (kind read from its shape). */
export function requestOf(message: JsonRpcMessage, origin: RequestOrigin = originOf()): McpRequest {
  const kind: MessageKind =
    message.method === undefined ? 'response' : message.id === undefined ? 'notification' : 'request';
  return mcpRequest({ ...origin, kind, message });
}

/** A `method` request with `params` and `id`. */
export function callRequest(
  method: string,
  params: Record<string, unknown> = {},
  origin: RequestOrigin = originOf(),
  id: JsonRpcId = 1,
): McpRequest {
  return requestOf({ jsonrpc: '2.0', id, method, params }, origin);
}

/** The note the dispatcher would open for `request`. */
export function noteOf(request: McpRequest): RequestNote {
  return requestNoteOf(request);
}

/** A call of `entry` as the admission would hand it on (nothing checked). */
export function admittedCall<T extends RegisteredHandler>(
  request: McpRequest,
  entry: T,
  args: unknown,
  options: { kind?: McpCallKind; reply?: ReplyChannel; note?: RequestNote; target?: string } = {},
): AdmittedCall<T> {
  return {
    request,
    reply: options.reply ?? new RecordingReply(),
    note: options.note ?? noteOf(request),
    kind: options.kind ?? 'tool',
    target: options.target ?? (entry as { name?: string }).name ?? '',
    entry,
    args,
  };
}
