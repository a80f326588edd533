import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpGateway, type UpstreamStatus } from '#libs/gateway';
import { McpModule } from '#libs/hosting';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { LEGACY, MODERN } from './support/era-clients';
import { baseUrlOf, connectHttpClient } from './support/fixture-app';
import { freePort } from './support/free-port';
import { waitFor } from './support/wait-for';

// Desk processes start, are killed and start again here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(60_000);

/** The back-off and circuit of the upstream under test: short, so that the spec is. */
const RECONNECT = { initialDelayMs: 200, maxDelayMs: 1_600 };
const CIRCUIT = { failureThreshold: 2, openMs: 5_000 };
/** The delays the gateway should announce, one per attempt: doubling from 200 ms up to 1.6 s. */
const BACK_OFF = [200, 400, 800, 1_600];

/** Every line the gateway's loggers write, with its context (`McpGateway:desk`). */
class LogCapture implements LoggerService {
  readonly lines: { context: string; message: string }[] = [];
  log = (message: unknown, ...rest: unknown[]) => this.keep(message, rest);
  error = (message: unknown, ...rest: unknown[]) => this.keep(message, rest);
  warn = (message: unknown, ...rest: unknown[]) => this.keep(message, rest);
  debug = (message: unknown, ...rest: unknown[]) => this.keep(message, rest);
  verbose = (message: unknown, ...rest: unknown[]) => this.keep(message, rest);

  /** What the upstream's own logger said, from line `from` on. */
  of(context: string, from = 0): string[] {
    return this.lines.slice(from).flatMap((line) => (line.context === context ? [line.message] : []));
  }

  private keep(message: unknown, rest: unknown[]): void {
    const context = rest.filter((part) => typeof part === 'string').pop() ?? '';
    this.lines.push({ context, message: String(message) });
  }
}

/**
 * A 2025-11-25 and a 2026-07-28 upstream (the support desk, a process of its own) killed under the
 * gateway: while nothing listens it is never "connected", its circuit stays open for the time it
 * was given, and the gateway tries again as documented (doubling from `initialDelayMs` up to
 * `maxDelayMs`); once the desk is back, one attempt connects and calls go through.
 */
describe.each([
  { era: LEGACY, protocolVersion: LEGACY },
  { era: MODERN, protocolVersion: 'auto' },
] as const)('the gateway and a $era upstream that dies', ({ era, protocolVersion }) => {
  const logs = new LogCapture();
  let port: number;
  let desk: DeskProcess | undefined;
  let gateway: INestApplication;
  let client: Client;
  const status = (): UpstreamStatus => gateway.get(McpGateway).status()[0];
  const getTicket = async () =>
    (await client.callTool({ name: 'desk__get_ticket', arguments: { ticketId: 'T-2001' } })) as CallToolResult;

  beforeAll(async () => {
    port = await freePort();
    desk = await startDeskProcess({}, { port });
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'front-desk',
          version: '1.0.0',
          gateway: {
            upstreams: [
              {
                name: 'desk',
                protocolVersion,
                transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
                required: false,
                timeoutMs: 2_000,
                circuitBreaker: CIRCUIT,
                reconnect: RECONNECT,
              },
            ],
          },
        }),
      ],
    }).compile();
    gateway = moduleRef.createNestApplication({ logger: logs });
    await gateway.listen(0, '127.0.0.1');
    client = await connectHttpClient(`${await baseUrlOf(gateway)}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await desk?.stop();
  });

  it(`speaks ${era} with the desk and calls it`, async () => {
    expect(status()).toMatchObject({ state: 'connected', circuit: 'closed', protocolVersion: era });
    expect((await getTicket()).isError).toBeFalsy();
  });

  it('keeps the circuit open and backs off while nothing listens, never saying it is connected', async () => {
    const from = logs.lines.length;
    const reconnectsBefore = status().reconnects;
    await desk!.kill();
    desk = undefined;
    // Calls fail (the first finds the connection gone, the next find it not connected) until the circuit opens.
    const refusals: string[] = [];
    while (status().circuit !== 'open') {
      const result = await getTicket();
      expect(result.isError).toBe(true);
      refusals.push((result.content[0] as { text: string }).text);
    }
    expect(refusals).toEqual([
      'The upstream MCP server desk could not be reached; the operation may be retried later.',
      'The upstream MCP server desk is not connected (it could not be reached); retry later.',
    ]);
    // For most of openMs (5 s) after it opened, it stays open, and the upstream is not connected.
    const seen = new Set<string>();
    const until = Date.now() + CIRCUIT.openMs - 1_500;
    while (Date.now() < until) {
      const { state, circuit } = status();
      seen.add(`${state}, circuit ${circuit}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([...seen]).toEqual(['reconnecting, circuit open']);
    const said = logs.of('McpGateway:desk', from);
    expect(said.filter((line) => line.startsWith('connected to'))).toEqual([]);
    // Each attempt says when the next comes: the delays double, from initialDelayMs to maxDelayMs.
    const delays = said.flatMap((line) => {
      const match = / (?:reconnecting|retrying) in (\d+) ms$/.exec(line);
      return match ? [Number(match[1])] : [];
    });
    expect(delays.slice(0, BACK_OFF.length)).toEqual(BACK_OFF);
    expect(delays.every((delay, index) => delay === Math.min(RECONNECT.maxDelayMs, 200 * 2 ** index))).toBe(true);
    // Attempts so far: one at 0.2 s, 0.6 s, 1.4 s and 3 s after the loss, not one every 200 ms.
    expect(status().reconnects - reconnectsBefore).toBeLessThanOrEqual(BACK_OFF.length);
  });

  it('connects once when the desk is back, and calls go through again', async () => {
    const from = logs.lines.length;
    desk = await startDeskProcess({}, { port });
    await waitFor(() => status().state === 'connected', 10_000);
    expect(status()).toMatchObject({ protocolVersion: era });
    expect((await getTicket()).isError).toBeFalsy();
    expect(status().circuit).toBe('closed');
    const connected = logs.of('McpGateway:desk', from).filter((line) => line.startsWith('connected to'));
    expect(connected).toEqual([`connected to support-desk 1.0.0 (${era})`]);
  });
});
