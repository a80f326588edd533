import { IntrinsicException } from '@nestjs/common';
import { CallCancellation } from './call-cancellation';
import { CallCancelledError } from './call-cancelled.error';

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
    expect(cancellation.signal.reason).toEqual(new CallCancelledError('gone'));
  });

  it('keeps the first reason', () => {
    const cancellation = new CallCancellation();
    cancellation.cancel('first');
    cancellation.cancel('second');
    expect((cancellation.signal.reason as Error).message).toBe('first');
  });

  it('aborts with an error Nest does not log as a crash, keeping its message; an intrinsic reason is kept as it is', () => {
    const plain = new CallCancellation();
    plain.cancel(new Error('client disconnected'));
    expect(plain.cause).toBeInstanceOf(CallCancelledError);
    expect(plain.cause).toBeInstanceOf(IntrinsicException);
    expect((plain.cause as Error).message).toBe('client disconnected');
    const own = new CallCancelledError('host shutting down');
    const intrinsic = new CallCancellation();
    intrinsic.cancel(own);
    expect(intrinsic.signal.reason).toBe(own);
  });
});
