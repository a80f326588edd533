import { Inject } from '@nestjs/common';
import type { EventSink, ResumableStream } from './resumable-stream';

/** How a reconnection with `Last-Event-ID` to a stream this replica does not have went. */
export type RemoteResume = 'resumed' | 'ended' | 'unknown';

/**
 * The SSE streams of requests, seen from the replicas that do not have them: a client whose
 * connection dropped may reconnect (`GET` + `Last-Event-ID`) to any replica. One replica has
 * every stream itself (`LocalStreams`: nothing to keep elsewhere, no stream elsewhere); with the
 * `cluster` option the cluster's keeps each stream's events where every replica reads them and
 * hands the stream over to the replica the client reconnected to.
 */
export interface SharedStreams {
  /** A stream this replica opened for a request of `session` (a failure to share it is logged). */
  opened(stream: ResumableStream, session: string): void;
  /**
   * Serves a reconnection (`Last-Event-ID` = `<stream>_<seen>`) to a stream of `session` that
   * this replica does not have: what followed `seen`, then the stream's next events as they come.
   * `unknown` when no replica has such a stream of this session; `ended` when it is over and
   * nothing follows `seen` (the caller answers 204).
   * @param onClose registers what to do when the client's connection closes
   * @throws when the shared store cannot be reached
   */
  resume(
    streamId: string,
    session: string,
    seen: number,
    sink: EventSink,
    onClose: (listener: () => void) => void,
  ): Promise<RemoteResume>;
}

/** Token of the `SharedStreams` (the hosting module provides the one its options ask for). */
export const MCP_SHARED_STREAMS = Symbol('MCP:SHARED_STREAMS');

/** Injects the `SharedStreams`. */
export const InjectSharedStreams = () => Inject(MCP_SHARED_STREAMS);
