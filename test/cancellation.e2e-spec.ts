import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditRecord } from '#libs/security';
import { PipelineLog } from './fixtures/fixture.tools';
import { connect } from './support/connect';
import { waitFor } from './support/wait-for';

const cases = [
  ['http', 'stateful'],
  ['http', 'stateless'],
  ['stdio', 'stateful'],
] as const;

/**
 * `notifications/cancelled` stops the call it names, on every transport (on stateless HTTP too,
 * where it arrives on a POST of its own), and the request gets no response: the spec says the
 * receiver should not send one, and real clients log an error for an answer to a request they
 * dropped. The audit trail records the call as cancelled.
 */
describe.each(cases)('a request the client cancels, over %s (%s)', (transport, mode) => {
  it('is stopped, answered with nothing, and audited as cancelled', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-cancel-')), 'audit.jsonl');
    const connected = await connect(transport, {}, { mode, audit: { file, flushIntervalMs: 10 } });
    const { client, app } = connected;
    const errors: Error[] = [];
    client.onerror = (error) => void errors.push(error);
    // Every message the server sends, as it arrives, before the client handles it.
    const wire: JSONRPCMessage[] = [];
    const clientTransport = client.transport!;
    const handle = clientTransport.onmessage!;
    clientTransport.onmessage = (message: JSONRPCMessage) => {
      wire.push(message);
      handle(message);
    };
    let cancelledId: unknown;
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow' }, undefined, {
        signal: controller.signal,
        onprogress: (progress) => {
          if (progress.progress === 2) controller.abort('the user changed their mind');
        },
      });
      await expect(call).rejects.toThrow();
      const log = app.get(PipelineLog);
      await waitFor(() => log.events.some((event) => event.startsWith('slow:aborted@')));
      // The SDK uses the request id as the progress token.
      cancelledId = (
        wire.find((message) => 'method' in message && message.method === 'notifications/progress') as unknown as {
          params: { progressToken: unknown };
        }
      ).params.progressToken;
      // The client is still served afterwards, and the late answer never came.
      expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toEqual({
        content: [{ type: 'text', text: '3' }],
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answered = wire
        .filter((message) => 'id' in message && ('result' in message || 'error' in message))
        .map((message) => (message as { id: unknown }).id);
      expect(answered).toHaveLength(1); // the `add` call's answer
      expect(answered).not.toContain(cancelledId);
      // Progress the tool sent before the host saw the cancellation may reach the client after it
      // dropped the request (the SDK then reports an unknown token): a race on the wire, not a
      // message sent for a cancelled request. Anything from the step the tool stopped at on is.
      const stoppedAt = Number(/slow:aborted@(\d+)/.exec(log.events.find((e) => e.startsWith('slow:aborted@'))!)![1]);
      const sentAfterCancel = errors.filter((error) => {
        const late = /unknown token: (\{.*\})$/.exec(error.message);
        return !late || (JSON.parse(late[1]) as { params: { progress: number } }).params.progress >= stoppedAt;
      });
      expect(sentAfterCancel).toEqual([]);
    } finally {
      await connected.close();
    }
    expect(cancelledId).toEqual(expect.any(Number));
    const records = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(records.find((record) => record.target === 'slow')).toMatchObject({
      method: 'tools/call',
      outcome: 'cancelled',
      error: 'Cancelled by the client: the user changed their mind',
    });
    // Closing the app can wait a few seconds for a connection the SDK client opened and never used.
  }, 20_000);
});
