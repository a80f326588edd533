import { connect } from 'node:net';
import { Test } from '@nestjs/testing';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { FixtureModule } from './fixtures/fixture.module';
import { CapturingLogger } from './support/capturing-logger';
import { connectHttpClient } from './support/fixture-app';

/** Sends the headers and half the body of a POST, then drops the connection. */
function sendHalfABody(url: string): Promise<void> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
          'accept: application/json, text/event-stream\r\ncontent-length: 200\r\n\r\n{"jsonrpc":"2.0","id":1,',
      );
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('close', () => setTimeout(resolve, 50));
    socket.on('error', () => undefined);
  });
}

/**
 * A client's ordinary mistakes (an unknown resource, a bad tool argument, an unknown tool or
 * prompt) must not reach the error log, let alone with a stack trace: any reader could fill it.
 * Only the host's own faults are errors.
 */
describe("a client's mistakes in the host's log", () => {
  it('are at most debug one-liners; a tool that crashes is still an error with its stack', async () => {
    const logger = new CapturingLogger();
    const moduleRef = await Test.createTestingModule({ imports: [FixtureModule.register()] }).compile();
    const app = moduleRef.createNestApplication({ logger });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const client = await connectHttpClient(url);
    try {
      const start = logger.lines.length;
      const failure = (promise: Promise<unknown>) =>
        promise.then(
          () => undefined,
          (error: unknown) => error as McpError,
        );
      // A client that goes away halfway through sending its request.
      for (let i = 0; i < 3; i++) await sendHalfABody(url);
      for (let i = 0; i < 5; i++) {
        expect(await failure(client.readResource({ uri: 'kb://articles/no-such-article' }))).toMatchObject({
          code: -32002,
        });
        expect(await failure(client.readResource({ uri: 'kb://nothing/here' }))).toMatchObject({ code: -32002 });
        expect(await failure(client.getPrompt({ name: 'nope' }))).toMatchObject({ code: -32602 });
        expect(await failure(client.callTool({ name: 'nope' }))).toMatchObject({ code: -32602 });
        expect((await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } })).isError).toBe(true);
      }
      const mistakes = logger.lines.slice(start);
      expect(
        mistakes.filter((line) => line.level === 'error' || line.level === 'warn' || line.level === 'fatal'),
      ).toEqual([]);
      expect(
        mistakes.filter(
          (line) => line.message.includes('\n') || line.extra.some((extra) => String(extra).includes('\n    at ')),
        ),
      ).toEqual([]);

      const crash = await client.callTool({ name: 'failInternal' });
      expect(crash.isError).toBe(true);
      const errors = logger.lines.slice(start).filter((line) => line.level === 'error');
      // The host's own fault is an error, with the reference the client was given and its stack.
      const reference = /reference ([0-9a-f-]{36})/.exec((crash.content as { text: string }[])[0].text)![1];
      expect(errors.find((line) => line.message.includes(reference))?.extra.join('\n')).toMatch(/\n\s+at /);
    } finally {
      await client.close();
      await app.close();
    }
  });
});
