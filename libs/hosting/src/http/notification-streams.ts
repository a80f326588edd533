import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import { InjectSharedStreams, streamIdOf, type McpSession, type SharedStreams } from '#libs/protocol';
import { HttpResponder } from './http-responder';
import { HttpMessages } from './http.messages';
import { SseStream } from './sse-stream';

/** Most GET (standalone notification) streams one session may hold open at once. */
const MAX_GET_STREAMS = 8;

/**
 * The GET streams of a session (Streamable HTTP, stateful mode): with `Last-Event-ID`, the rest
 * of a request's resumable stream (this replica's, or another's from the shared store); without,
 * a stream of the session's own messages (list changes, resource updates, task status), a few
 * at most per session.
 */
@Injectable()
export class NotificationStreams {
  private readonly logger = new Logger('McpHttp');

  constructor(
    private readonly responder: HttpResponder,
    @InjectSharedStreams() private readonly sharedStreams: SharedStreams,
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse, session: McpSession, principal: McpPrincipal): Promise<void> {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string') {
      const resumed = session.streams.get(streamIdOf(lastEventId));
      if (resumed?.endedBefore(lastEventId)) {
        // Nothing more will come on that stream (it ended, e.g. its request was cancelled): a stream
        // answered and ended at once would only make the client reconnect again.
        this.responder.empty(res, 204);
        return;
      }
      if (resumed) {
        const stream = new SseStream(res, {});
        res.once('close', () => stream.end());
        resumed.attach(stream, lastEventId);
        return;
      }
      // A stream another replica opened: served from the shared store, then as it goes on.
      if (await this.resumeElsewhere(req, res, session, lastEventId)) return;
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

  /** Serves a reconnection to another replica's stream; `false` when no replica has it (a new stream is opened). */
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
}
