import { CallCancellation } from '#libs/invocation';
import { HostState } from './host-state';

describe('HostState', () => {
  it('takes requests only while ready', () => {
    const state = new HostState();
    expect(state.accepting).toBe(false);
    state.phase = 'ready';
    expect(state.accepting).toBe(true);
  });

  it('drains at once when nothing is in flight', async () => {
    const state = new HostState();
    state.phase = 'ready';
    expect(await state.drain(10_000)).toEqual({ inFlight: 0, cancelled: 0, unfinished: 0 });
    expect(state.phase).toBe('draining');
  });

  it('waits for the work in flight to be answered and recorded, not only for the calls to return', async () => {
    const state = new HostState();
    state.phase = 'ready';
    const call = new CallCancellation();
    state.enter();
    state.begin(call);
    const drained = state.drain(10_000);
    state.end(call); // the call returned; its answer is not delivered yet
    let done = false;
    void drained.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    state.leave(); // answered and recorded
    expect(await drained).toEqual({ inFlight: 1, cancelled: 0, unfinished: 0 });
    expect(call.isCancelled).toBe(false);
  });

  it('cancels the calls still running when the time is up, then waits for their answers', async () => {
    const state = new HostState();
    state.phase = 'ready';
    const call = new CallCancellation();
    state.enter();
    state.begin(call);
    // The one who answers for the call is told at once, and answers.
    call.onShutdown = () =>
      setTimeout(() => {
        state.end(call);
        state.leave();
      }, 5);
    expect(await state.drain(20)).toEqual({ inFlight: 1, cancelled: 1, unfinished: 0 });
    expect(call.isCancelled).toBe(true);
    expect(call.forShutdown).toBe(true);
    expect(call.byClient).toBe(false);
    expect((call.cause as Error).message).toBe('the host is shutting down');
  });

  it('reports work that did not end even after its cancellation, and gives up on it', async () => {
    const state = new HostState();
    state.phase = 'ready';
    const call = new CallCancellation();
    state.enter();
    state.begin(call);
    expect(await state.drain(10)).toEqual({ inFlight: 1, cancelled: 1, unfinished: 1 });
  });
});
