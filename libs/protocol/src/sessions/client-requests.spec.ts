import { McpClientRequestError } from '#libs/core';
import { ClientRequests } from './client-requests';

/** Sends one request and returns its promise and its id (as the client sees it). */
function ask(requests: ClientRequests) {
  const sent: string[] = [];
  const answer = requests.send(
    'elicitation/create',
    {},
    (message) => (sent.push(message), true),
    60_000,
    new AbortController().signal,
  );
  return { answer, id: (JSON.parse(sent[0]) as { id: string }).id };
}

describe('ClientRequests.settle', () => {
  it('resolves with the client result', async () => {
    const requests = new ClientRequests();
    const { answer, id } = ask(requests);
    expect(requests.settle(id, { action: 'accept' }, undefined)).toBe(true);
    await expect(answer).resolves.toEqual({ action: 'accept' });
  });

  it('takes "method not found" (-32601) as a client that cannot answer, not one that refused', async () => {
    const requests = new ClientRequests();
    const { answer, id } = ask(requests);
    requests.settle(id, undefined, {
      code: -32601,
      message: 'The client of this call does not support elicitation/create',
    });
    const error = (await answer.catch((caught: unknown) => caught)) as McpClientRequestError;
    expect(error).toBeInstanceOf(McpClientRequestError);
    expect({ reason: error.reason, message: error.message }).toEqual({
      reason: 'unsupported',
      message:
        'The client cannot answer elicitation/create: The client of this call does not support elicitation/create',
    });
  });

  it('takes any other error as a refusal', async () => {
    const requests = new ClientRequests();
    const { answer, id } = ask(requests);
    requests.settle(id, undefined, { code: -32600, message: 'no' });
    await expect(answer).rejects.toMatchObject({
      reason: 'refused',
      message: 'The client refused elicitation/create: no',
    });
  });

  it('says when nothing waited for the answer', () => {
    expect(new ClientRequests().settle('srv-9', {}, undefined)).toBe(false);
  });
});
