import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpRequestObservers, RequestEvents, type McpRequestEvent } from '#libs/protocol';

/** For the HTTP transport's specs only (left out of the package build). */

/** A JSON-RPC answer, as the tests read it. */
export interface RpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body the test reads field by field
  result: { [key: string]: any };
  error: { code: number; message: string };
}

export const rpcOf = async (response: Response): Promise<RpcAnswer> => (await response.json()) as RpcAnswer;

/** Serves `handle` on a loopback port; the tests send requests to `url` (the MCP path) with `fetch`. */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

/** Request events as the engine publishes them, and the list they are recorded in. */
export function recordedEvents(): { events: RequestEvents; recorded: McpRequestEvent[] } {
  const observers = new McpRequestObservers();
  const recorded: McpRequestEvent[] = [];
  observers.add({ observe: (event) => recorded.push(event) });
  return { events: new RequestEvents(observers), recorded };
}

/**
 * Wraps a function that starts a loopback server so that every server it starts in a test is
 * closed after that test (call it inside `describe`: it registers the `afterEach`).
 */
export function closedAfterEach<A extends unknown[], T extends { server: Server }>(
  start: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      open.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  });
  return async (...args) => {
    const served = await start(...args);
    open.push(served.server);
    return served;
  };
}
