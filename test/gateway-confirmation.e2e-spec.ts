import { Injectable, type INestApplication } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp-host';
import { McpModule } from '#libs/hosting';
import { ERA_CLIENTS, type ElicitAnswer, type EraClient } from './support/era-clients';
import { baseUrlOf, startTestApp } from './support/fixture-app';

// Two hosts start here and clients of three kinds connect: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

/** What the upstream ran, by tool. */
const ran: string[] = [];

/** An upstream whose destructive tool asks nobody: the gateway is the one to ask. */
@Injectable()
class StoreTools {
  @McpTool({
    description: 'Empties a cache for good',
    input: { type: 'object', properties: { what: { type: 'string' } }, required: ['what'] },
    annotations: { destructiveHint: true },
  })
  purge(@McpArgs() { what }: { what: string }) {
    ran.push(`purge ${what}`);
    return `${what} purged`;
  }

  @McpTool({ description: 'Counts the entries of a cache', annotations: { readOnlyHint: true } })
  count() {
    ran.push('count');
    return '12 entries';
  }
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/**
 * An upstream tool that declares `destructiveHint` is confirmed by the gateway's host like a local
 * one, for clients of both eras (the 2026-07-28 ones through an input round), unless the
 * upstream's `confirm: 'none'` leaves it to the upstream; the host itself has no
 * `confirmDestructive`.
 */
describe('the gateway confirms an upstream’s destructive tools', () => {
  let upstream: INestApplication;
  let gateway: INestApplication;
  let url: string;

  beforeAll(async () => {
    upstream = await startTestApp({
      imports: [McpModule.forRoot({ name: 'store', version: '1.0.0' })],
      providers: [StoreTools],
    });
    const upstreamUrl = `${await baseUrlOf(upstream)}/mcp`;
    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'front',
          version: '1.0.0',
          gateway: {
            upstreams: [
              { name: 'store', transport: { type: 'http', url: upstreamUrl } },
              { name: 'trusted', transport: { type: 'http', url: upstreamUrl }, confirm: 'none' },
            ],
          },
        }),
      ],
    });
    url = `${await baseUrlOf(gateway)}/mcp`;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  describe.each(ERA_CLIENTS)('$title', ({ title, connect }) => {
    let client: EraClient;
    let answer: ElicitAnswer;
    const asked: string[] = [];
    beforeAll(async () => {
      client = await connect(url, `confirming ${title}`, {
        elicit: (message) => (asked.push(message), answer),
      });
    });
    afterAll(() => client?.close());
    beforeEach(() => {
      asked.length = 0;
      ran.length = 0;
    });

    it('holds it for confirmation: declined, it does not run upstream', async () => {
      answer = { action: 'decline' };
      const result = await client.callTool('store__purge', { what: 'sessions' });
      expect(asked).toEqual(['Allow "store__purge" to run with {"what":"sessions"}?']);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'The user did not confirm "store__purge" (decline); it was not run. Do not retry without asking the user.',
      );
      expect(ran).toEqual([]);
    });

    it('runs it once upstream when the user confirms', async () => {
      answer = { action: 'accept', content: { confirm: true } };
      const result = await client.callTool('store__purge', { what: 'sessions' });
      expect(asked).toEqual(['Allow "store__purge" to run with {"what":"sessions"}?']);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('sessions purged');
      expect(ran).toEqual(['purge sessions']);
    });

    it("asks nothing for an upstream configured with confirm: 'none', nor for a tool that is not destructive", async () => {
      answer = { action: 'decline' };
      expect(textOf(await client.callTool('trusted__purge', { what: 'thumbnails' }))).toBe('thumbnails purged');
      expect(textOf(await client.callTool('store__count', {}))).toBe('12 entries');
      expect(asked).toEqual([]);
      expect(ran).toEqual(['purge thumbnails', 'count']);
    });
  });
});
