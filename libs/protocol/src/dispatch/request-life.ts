import type { HostState } from '../lifecycle/host-state';
import type { RequestEvents } from '../events/request-events';
import type { RequestNote } from '../events/request-note';
import type { McpAnswer, ReplyChannel } from '../requests/reply-channel';

/**
 * The life of one request the engine serves: taken (the host does not let go of it), answered
 * (the transport delivered what its `ReplyChannel` was given), recorded (the note goes to the
 * observers: audit, metrics, statistics), ended. `complete` is its one end: whatever the work did,
 * the answer is delivered before the record is taken, and both before the host lets go.
 */
export class RequestLife {
  constructor(
    private readonly state: HostState,
    private readonly events: RequestEvents,
    private readonly note: RequestNote,
  ) {
    state.enter();
  }

  /** Delivers what `answer` made, records the request, and lets go of it; resolves to what was answered. */
  async complete(reply: ReplyChannel, answer: () => Promise<McpAnswer>): Promise<McpAnswer> {
    try {
      const answered = await answer();
      await reply.answer(answered);
      return answered;
    } finally {
      this.events.finish(this.note);
      this.state.leave();
    }
  }
}
