import { McpClientRequestError } from '#libs/core';
import { TaskInputs, type TaskInputRequests } from './task-inputs';

function setup() {
  const seen: TaskInputRequests[] = [];
  return { inputs: new TaskInputs((outstanding) => seen.push(outstanding)), seen };
}

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: McpClientRequestError) => `${error.reason}: ${error.message}`,
  );

describe('TaskInputs', () => {
  afterEach(() => jest.useRealTimers());

  it('keys each request by what it is, and reports what is outstanding on every change', async () => {
    const { inputs, seen } = setup();
    const signal = new AbortController().signal;
    const elicited = inputs.request('elicitation/create', { message: 'Proceed?' }, 1_000, signal);
    const sampled = inputs.request('sampling/createMessage', { messages: [] }, 1_000, signal);
    expect(Object.keys(inputs.outstanding)).toEqual(['elicitation-1', 'sampling-2']);
    expect(seen.map(Object.keys)).toEqual([['elicitation-1'], ['elicitation-1', 'sampling-2']]);
    expect(inputs.respond({ 'sampling-2': { role: 'assistant' }, 'elicitation-9': {} })).toEqual(['sampling-2']);
    await expect(sampled).resolves.toEqual({ role: 'assistant' });
    expect(seen.at(-1)).toEqual({ 'elicitation-1': { method: 'elicitation/create', params: { message: 'Proceed?' } } });
    inputs.respond({ 'elicitation-1': { action: 'cancel' } });
    await expect(elicited).resolves.toEqual({ action: 'cancel' });
    expect(seen.at(-1)).toEqual({});
  });

  it('gives up after the timeout and when the call is aborted, and is no longer outstanding then', async () => {
    jest.useFakeTimers();
    const { inputs } = setup();
    const late = reasonOf(inputs.request('roots/list', {}, 1_000, new AbortController().signal));
    const abort = new AbortController();
    const aborted = reasonOf(inputs.request('elicitation/create', {}, 60_000, abort.signal));
    abort.abort();
    jest.advanceTimersByTime(1_000);
    expect(await late).toBe('timeout: The client did not answer roots/list within 1000 ms.');
    expect(await aborted).toBe('cancelled: elicitation/create was abandoned: the call was cancelled');
    expect(inputs.outstanding).toEqual({});
  });

  it('abandons what is outstanding when closed, and sends nothing after', async () => {
    const { inputs } = setup();
    const signal = new AbortController().signal;
    const pending = reasonOf(inputs.request('elicitation/create', {}, 1_000, signal));
    inputs.close('the task was cancelled');
    expect(await pending).toBe('cancelled: elicitation/create was abandoned: the task was cancelled');
    expect(await reasonOf(inputs.request('elicitation/create', {}, 1_000, signal))).toBe(
      'cancelled: elicitation/create not sent: the task was cancelled',
    );
    expect(inputs.outstanding).toEqual({});
  });
});
