import { CallCancellation } from './call-cancellation';

describe('CallCancellation', () => {
  it('aborts a signal read before cancellation', () => {
    const cancellation = new CallCancellation();
    const signal = cancellation.signal;
    expect(signal.aborted).toBe(false);
    cancellation.cancel(new Error('stop'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stop');
  });

  it('hands out an already aborted signal when read after cancellation', () => {
    const cancellation = new CallCancellation();
    cancellation.cancel('gone');
    expect(cancellation.isCancelled).toBe(true);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe('gone');
  });

  it('keeps the first reason', () => {
    const cancellation = new CallCancellation();
    cancellation.cancel('first');
    cancellation.cancel('second');
    expect(cancellation.signal.reason).toBe('first');
  });
});
