/** Where a resumable stream's events are written: an open SSE response. */
export interface EventSink {
  event(id: string, data: string): void;
  end(): void;
}

/** How long a finished stream's events stay available for a late reconnection. */
export const KEEP_AFTER_FINISH_MS = 60_000;
/** At most this many events are kept for replay; older ones are dropped. */
export const MAX_EVENTS = 1_000;

/** Told of a stream's events as they are sent, to keep them where other replicas can read them. */
export interface StreamMirror {
  sent(stream: ResumableStream, seq: number, data: string): void;
  finished(stream: ResumableStream, lastSeq: number): void;
}

/**
 * The events of one request's SSE stream, numbered `<streamId>_<n>` and kept, so that a client
 * whose connection dropped (or that the server let go, SEP-1699 polling) can reconnect with
 * `GET` + `Last-Event-ID` and receive the rest, including the response.
 */
export class ResumableStream {
  private readonly events: { id: string; data: string; seq: number }[] = [];
  private seq = 0;
  private sink: EventSink | undefined;
  private finished = false;
  /** Where the events also go when replicas share sessions. */
  mirror: StreamMirror | undefined;

  constructor(
    readonly id: string,
    private readonly onExpire: () => void,
  ) {}

  /** The id of the priming event (empty data), sent first on every new connection. */
  get primingId(): string {
    return `${this.id}_0`;
  }

  send(data: string): void {
    const seq = ++this.seq;
    const event = { id: `${this.id}_${seq}`, data, seq };
    this.events.push(event);
    if (this.events.length > MAX_EVENTS) this.events.shift();
    this.sink?.event(event.id, event.data);
    this.mirror?.sent(this, seq, data);
  }

  /** The events kept after `seq`, oldest first (for a reconnection served by another replica). */
  eventsAfter(seq: number): { seq: number; data: string }[] {
    return this.events.filter((event) => event.seq > seq);
  }

  /** Writes to `sink` from now on, after replaying what followed `lastEventId`. */
  attach(sink: EventSink, lastEventId: string): void {
    this.sink?.end();
    this.sink = sink;
    const seen = Number(lastEventId.slice(lastEventId.lastIndexOf('_') + 1));
    for (const event of this.events) if (!(event.seq <= seen)) sink.event(event.id, event.data);
    if (this.finished) this.release();
  }

  /** Whether the stream is over and holds nothing after `lastEventId`: a reconnection would get nothing. */
  endedBefore(lastEventId: string): boolean {
    if (!this.finished) return false;
    const seen = Number(lastEventId.slice(lastEventId.lastIndexOf('_') + 1));
    return !(this.seq > seen);
  }

  /** Ends the current connection but keeps the request running and its events coming. */
  release(): void {
    this.sink?.end();
    this.sink = undefined;
  }

  finish(): void {
    this.finished = true;
    this.release();
    this.mirror?.finished(this, this.seq);
    setTimeout(this.onExpire, KEEP_AFTER_FINISH_MS).unref();
  }
}

/** The stream id inside a `Last-Event-ID` value. */
export function streamIdOf(lastEventId: string): string {
  return lastEventId.slice(0, Math.max(0, lastEventId.lastIndexOf('_')));
}
