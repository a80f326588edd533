import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { connectHttpClient } from './support/fixture-app';
import { startHostileUpstream, type HostileUpstream } from './support/hostile-upstream';
import { waitFor, waitForAsync } from './support/wait-for';

// A desk process, server-everything and a hostile upstream start here, and the hostile one is
// made to send far more than it may: on a busy CI machine that takes longer than jest's 5 s
// default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(60_000);

const MiB = 1024 * 1024;
/** The limits of the hostile HTTP upstream: low, so that the spec stays quick. */
const LIMITS = {
  maxResponseBytes: MiB,
  maxListEntries: 300,
  maxListPages: 20,
  maxEntryBytes: 16_384,
  maxConnections: 8,
};
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const HOSTILE_STDIO = join(__dirname, 'fixtures', 'hostile-stdio-server.mjs');

/** The resident memory of a process, in bytes. */
function rssOf(pid: number): number {
  const [, kb] = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))!;
  return Number(kb) * 1024;
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * The support desk as a gateway (a process of its own, `GATEWAY_UPSTREAMS_FILE`) in front of a
 * deliberately hostile HTTP upstream, a hostile stdio upstream and server-everything: what the
 * hostile ones send past their limits is refused as it arrives, naming the upstream and the
 * limit; the desk's memory stays small, it answers `/health/live` while it takes in a large
 * list, a burst of `list_changed` is one read, 400 concurrent calls hold at most
 * `maxConnections` sockets, and the other upstreams (and the desk's own tools) keep serving.
 */
describe('the gateway in front of hostile upstreams', () => {
  let hostile: HostileUpstream;
  let desk: DeskProcess;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** The others serve: server-everything through the gateway, and the desk's own tool. */
  const othersServe = async () => {
    expect(textOf(await call('everything__echo', { message: 'still here' }))).toBe('Echo: still here');
    expect((await call('get_ticket', { ticketId: 'T-2001' })).isError).toBeFalsy();
  };
  /** Whether the gateway has the tool now: it is called (its result is what it is), not refused as unknown (-32602). */
  const hasTool = (name: string) =>
    client.callTool({ name, arguments: { field_0: 'a' } }).then(
      () => true,
      (error: { code?: number }) => {
        if (error.code === -32602) return false;
        throw error;
      },
    );
  /** Announces a change and waits until `pages` pages of the new list were served, and no more come. */
  const reread = async (pages: number) => {
    const before = hostile.counts.pages;
    hostile.announceChanges(1);
    await waitFor(() => hostile.counts.pages >= before + pages, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return hostile.counts.pages - before;
  };

  beforeAll(async () => {
    hostile = await startHostileUpstream();
    const directory = mkdtempSync(join(tmpdir(), 'gateway-hostile-'));
    const upstreams = join(directory, 'upstreams.json');
    writeFileSync(
      upstreams,
      JSON.stringify({
        upstreams: [
          {
            name: 'hostile',
            protocolVersion: '2025-11-25',
            transport: { type: 'http', url: hostile.url },
            required: false,
            timeoutMs: 10_000,
            limits: LIMITS,
          },
          {
            name: 'noisy',
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: [HOSTILE_STDIO],
              // Between the limit and the SDK transport's own default (10 MB): only the limit refuses it.
              env: { HOSTILE_HUGE_BYTES: String(4 * MiB) },
            },
            required: false,
            reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 },
            limits: { maxResponseBytes: MiB },
          },
          {
            name: 'everything',
            transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
            tools: { allow: ['echo'] },
            required: false,
          },
        ],
      }),
    );
    desk = await startDeskProcess({ GATEWAY_UPSTREAMS_FILE: upstreams, THROTTLE_LIMIT: '100000' });
    client = await connectHttpClient(`http://127.0.0.1:${desk.port}/mcp`);
    await waitFor(() => hostile.streamOpen());
  });
  afterAll(async () => {
    await client?.close();
    await desk?.stop();
    await hostile?.close();
  });

  it('refuses an answer past maxResponseBytes as it arrives, naming the upstream and the limit', async () => {
    const before = rssOf(desk.pid);
    hostile.behaviour.hugeBytes = 256 * MiB;
    const result = await call('hostile__huge');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'The upstream MCP server hostile answered with more than 1048576 bytes (limits.maxResponseBytes); the answer was refused.',
    );
    // It stopped reading at the cap: what was written beyond it waits in socket buffers, a few MiB at most.
    expect(hostile.counts.hugeBytesSent).toBeLessThan(32 * MiB);
    expect(rssOf(desk.pid) - before).toBeLessThan(64 * MiB);
    // The upstream answered: it is up, and serves what it may.
    expect(textOf(await call('hostile__echo'))).toBe('echo: ok');
    await othersServe();
  });

  it('refuses a stdio line past maxResponseBytes, naming the upstream and the limit, and restarts the process', async () => {
    const before = rssOf(desk.pid);
    const result = await call('noisy__huge');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'The upstream MCP server noisy answered with more than 1048576 bytes (limits.maxResponseBytes); the answer was refused.',
    );
    expect(rssOf(desk.pid) - before).toBeLessThan(64 * MiB);
    await waitForAsync(async () => !(await call('noisy__echo')).isError, 10_000);
    expect(desk.output()).toContain(
      'the upstream sent a message of more than 1048576 bytes (limits.maxResponseBytes); its process is ended and started again',
    );
    await othersServe();
  });

  it('reads a list up to maxListEntries entries, and says so', async () => {
    Object.assign(hostile.behaviour, { tools: 1_000, pageSize: 100, generation: 'gen2' });
    // Page 0 has the three fixed tools and 100 generated ones: 303 entries by page 2, cut at 300.
    expect(await reread(3)).toBe(3);
    await waitForAsync(() => hasTool('hostile__gen2_tool_296'));
    expect(await hasTool('hostile__gen2_tool_297')).toBe(false);
    expect(desk.output()).toContain(
      'hostile lists more than 300 tools (limits.maxListEntries): the first 300 are served, the others left out',
    );
    await othersServe();
  });

  it('reads no more than maxListPages pages of a list whose pages never end', async () => {
    Object.assign(hostile.behaviour, { tools: 10, endlessPages: true, generation: 'gen3' });
    expect(await reread(LIMITS.maxListPages)).toBe(LIMITS.maxListPages);
    await waitForAsync(() => hasTool('hostile__gen3_tool_9'));
    expect(desk.output()).toContain(
      "hostile's tools list has more than 20 pages (limits.maxListPages): the entries of the first 20 are served, no further page is read",
    );
    hostile.behaviour.endlessPages = false;
    await othersServe();
  });

  it('reads the list once more, not 5,000 times, after a burst of 5,000 list_changed', async () => {
    // The first read takes a second to be answered: the whole burst arrives while it runs, however
    // busy the machine (on a loaded one, reading 5,000 notifications can outlast a fast read).
    Object.assign(hostile.behaviour, { tools: 10, generation: 'gen4', listDelayMs: 1_000 });
    const before = hostile.counts.listReads;
    hostile.announceChanges(5_000);
    await waitFor(() => hostile.counts.listReads > before);
    // Until no read has come for two seconds, longer than a read takes (or 15 s have passed).
    let seen = hostile.counts.listReads;
    let quietSince = Date.now();
    for (const deadline = Date.now() + 15_000; Date.now() - quietSince < 2_000 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (hostile.counts.listReads !== seen) [seen, quietSince] = [hostile.counts.listReads, Date.now()];
    }
    // The read the first notification started, and one after it for those that came meanwhile.
    expect(hostile.counts.listReads - before).toBeLessThanOrEqual(2);
    hostile.behaviour.listDelayMs = 0;
    await othersServe();
  });

  it('hangs up on an event of the session stream past maxResponseBytes (the SDK client’s path)', async () => {
    const before = rssOf(desk.pid);
    const written = await hostile.sendEndlessEvent(64 * MiB);
    expect(written).toBeLessThan(32 * MiB);
    expect(rssOf(desk.pid) - before).toBeLessThan(64 * MiB);
    await waitFor(() =>
      desk
        .output()
        .includes('the upstream sent a message of more than 1048576 bytes (limits.maxResponseBytes); it was refused'),
    );
    expect(textOf(await call('hostile__echo'))).toBe('echo: ok');
    // The session opens its stream again, and hears of changes on it.
    const reads = hostile.counts.listReads;
    await waitFor(() => hostile.streamOpen());
    hostile.announceChanges(1);
    await waitFor(() => hostile.counts.listReads > reads);
    await othersServe();
  });

  it('answers /health/live while it takes in a large list', async () => {
    // 297 new tools of 40 constrained properties each (~5 kB, ~3 ms to compile a validator for):
    // about a second of work, taken in by slices.
    Object.assign(hostile.behaviour, { tools: 297, pageSize: 50, schemaProperties: 40, generation: 'gen5' });
    const pages = hostile.counts.pages;
    hostile.announceChanges(1);
    await waitFor(() => hostile.counts.pages >= pages + 6, 20_000);
    // Each round: the first new tool, /health/live, the last new tool, in that order. A round in
    // which the first is in and the last not yet had /health/live answered in the middle of it.
    const rounds: { first: boolean; live: number; last: boolean }[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      const first = await hasTool('hostile__gen5_tool_0');
      const live = (await fetch(`http://127.0.0.1:${desk.port}/health/live`)).status;
      const last = await hasTool('hostile__gen5_tool_296');
      rounds.push({ first, live, last });
      if (last) break;
    }
    expect(rounds.at(-1)).toEqual({ first: true, live: 200, last: true });
    expect(rounds).toContainEqual({ first: true, live: 200, last: false });
    await othersServe();
  });

  it('holds at most maxConnections sockets to the upstream for 400 concurrent calls', async () => {
    Object.assign(hostile.behaviour, { slowMs: 40 });
    const accepted = hostile.counts.connections;
    const open = hostile.counts.open;
    hostile.resetPeak();
    const results = await Promise.all(Array.from({ length: 400 }, () => call('hostile__slow')));
    expect(results.map(textOf)).toEqual(Array(400).fill('slow: ok'));
    expect(hostile.counts.connections - accepted).toBeLessThanOrEqual(LIMITS.maxConnections);
    expect(hostile.counts.peakOpen).toBeLessThanOrEqual(open + LIMITS.maxConnections);
    await othersServe();
  });
});
