import { Logger } from '@nestjs/common';
import {
  KEEP_AFTER_FINISH_MS,
  MAX_EVENTS,
  type EventSink,
  type RemoteResume,
  type ResumableStream,
  type SharedStreams,
  type StreamMirror,
} from '#libs/protocol';
import type { McpCluster } from '../replicas/mcp-cluster';

/** How often a reconnection served here looks at the store for what it may have missed. */
const CATCH_UP_EVERY_MS = 2_000;
/** How long a running stream's events are kept after its last one. */
const KEEP_WHILE_RUNNING_MS = 30 * 60_000;

/** What the shared store says of a stream. */
interface StreamMeta {
  readonly session: string;
  readonly replica: string;
  readonly finished?: boolean;
  readonly lastSeq?: number;
}

/**
 * The SSE streams of requests, for replicas sharing sessions (the `cluster` option): each event a stream sends is also
 * appended to the shared store (as many, and as long, as a replica keeps itself), so that a
 * client reconnecting with `Last-Event-ID` to any replica gets the rest. The replica serving the
 * reconnection asks the stream's own replica to hand the stream over: that one lets go of its
 * connection and passes the stream's next events on, by broadcast, until it ends. When the
 * stream's replica is gone, the reconnection gets what the store kept, and then ends.
 */
export class ClusterStreams implements SharedStreams, StreamMirror {
  private readonly logger = new Logger('McpSharedStreams');
  /** This replica's streams, while they may be asked for. */
  private readonly local = new Map<string, ResumableStream>();
  /** Of those, the ones another replica now serves: their events are passed on. */
  private readonly handedOver = new Set<string>();
  /** Streams of other replicas this replica serves a reconnection of. */
  private readonly watchers = new Map<string, (event: { seq: number; data: string } | { end: number }) => void>();

  constructor(private readonly cluster: McpCluster) {
    cluster.on('stream-attach', ({ stream, after, from }) => {
      if (from === cluster.replica || typeof stream !== 'string') return;
      const local = this.local.get(stream);
      if (!local) return;
      // The client is on another replica now: its old connection here is let go.
      local.release();
      this.handedOver.add(stream);
      for (const event of local.eventsAfter(typeof after === 'number' ? after : 0))
        this.pass({ type: 'stream-event', stream, seq: event.seq, data: event.data });
    });
    cluster.on('stream-event', ({ stream, seq, data }) => {
      if (typeof stream === 'string' && typeof seq === 'number' && typeof data === 'string')
        this.watchers.get(stream)?.({ seq, data });
    });
    cluster.on('stream-end', ({ stream, lastSeq }) => {
      if (typeof stream === 'string' && typeof lastSeq === 'number') this.watchers.get(stream)?.({ end: lastSeq });
    });
  }

  /** A stream this replica opened for a request of `session`: its events are kept in the store from now on. */
  opened(stream: ResumableStream, session: string): void {
    stream.mirror = this;
    this.local.set(stream.id, stream);
    const meta: StreamMeta = { session, replica: this.cluster.replica };
    this.cluster.backplane
      .set(this.metaKey(stream.id), meta, KEEP_WHILE_RUNNING_MS)
      .catch((error: Error) => this.logger.warn(`cannot share stream ${stream.id}: ${error.message}`));
  }

  sent(stream: ResumableStream, seq: number, data: string): void {
    this.cluster.backplane
      .append(this.eventsKey(stream.id), data, MAX_EVENTS, KEEP_WHILE_RUNNING_MS)
      .catch((error: Error) => this.logger.warn(`cannot keep an event of stream ${stream.id}: ${error.message}`));
    if (this.handedOver.has(stream.id)) this.pass({ type: 'stream-event', stream: stream.id, seq, data });
  }

  finished(stream: ResumableStream, lastSeq: number): void {
    const { backplane, replica } = this.cluster;
    this.local.delete(stream.id);
    if (this.handedOver.delete(stream.id)) this.pass({ type: 'stream-end', stream: stream.id, lastSeq });
    const meta = backplane
      .get<StreamMeta>(this.metaKey(stream.id))
      .then((found) =>
        backplane.set(
          this.metaKey(stream.id),
          { session: found?.session ?? '', replica, finished: true, lastSeq },
          KEEP_AFTER_FINISH_MS,
        ),
      );
    Promise.all([meta, backplane.expire(this.eventsKey(stream.id), KEEP_AFTER_FINISH_MS)]).catch((error: Error) =>
      this.logger.warn(`cannot mark stream ${stream.id} finished: ${error.message}`),
    );
  }

  /**
   * Serves a reconnection (`Last-Event-ID` = `<stream>_<seen>`) to a stream of `session` that
   * another replica opened: what followed `seen`, then the stream's next events as they come.
   * `unknown` when no replica has such a stream of this session; `ended` when it is over and
   * nothing follows `seen` (the caller answers 204).
   * @param onClose registers what to do when the client's connection closes
   * @throws when the shared store cannot be reached
   */
  async resume(
    streamId: string,
    session: string,
    seen: number,
    sink: EventSink,
    onClose: (listener: () => void) => void,
  ): Promise<RemoteResume> {
    const { backplane } = this.cluster;
    const meta = await backplane.get<StreamMeta>(this.metaKey(streamId));
    if (!meta || meta.session !== session) return 'unknown';
    if (meta.finished && (meta.lastSeq ?? 0) <= seen) return 'ended';
    let delivered = seen;
    let end: number | undefined;
    let replaying = true;
    const early: { seq: number; data: string }[] = [];
    const write = (event: { seq: number; data: string }) => {
      if (event.seq <= delivered) return;
      delivered = event.seq;
      sink.event(`${streamId}_${event.seq}`, event.data);
    };
    let timer: NodeJS.Timeout | undefined;
    const close = () => {
      clearInterval(timer);
      this.watchers.delete(streamId);
      sink.end();
    };
    const maybeEnd = () => {
      if (end !== undefined && delivered >= end) close();
    };
    /** What the store has that was not delivered yet, and whether the stream is over. */
    const catchUp = async () => {
      const now = await backplane.get<StreamMeta>(this.metaKey(streamId));
      for (const entry of await backplane.readAfter(this.eventsKey(streamId), delivered))
        write({ seq: entry.seq, data: entry.value });
      if (now?.finished) end = now.lastSeq ?? delivered;
      // Nothing more will come from a replica that is gone.
      else if (!(await this.cluster.isAlive(meta.replica))) end = delivered;
    };
    this.watchers.set(streamId, (event) => {
      if ('end' in event) end = event.end;
      else if (replaying) early.push(event);
      else write(event);
      if (!replaying) maybeEnd();
    });
    onClose(() => {
      clearInterval(timer);
      this.watchers.delete(streamId);
    });
    if (!meta.finished) await this.cluster.broadcast({ type: 'stream-attach', stream: streamId, after: seen });
    await catchUp();
    replaying = false;
    for (const event of early.sort((a, b) => a.seq - b.seq)) write(event);
    maybeEnd();
    // The events are passed on as they come; the store is looked at now and then as well, in
    // case the stream ended before its replica heard of this reconnection.
    if (this.watchers.has(streamId))
      timer = setInterval(() => {
        catchUp().then(maybeEnd, () => undefined);
      }, CATCH_UP_EVERY_MS).unref();
    return 'resumed';
  }

  private pass(message: { type: string; [field: string]: unknown }): void {
    this.cluster
      .broadcast(message)
      .catch((error: Error) => this.logger.warn(`cannot pass ${message.type} on: ${error.message}`));
  }

  private metaKey(id: string): string {
    return this.cluster.key('stream', id);
  }

  private eventsKey(id: string): string {
    return this.cluster.key('stream', id, 'events');
  }
}
