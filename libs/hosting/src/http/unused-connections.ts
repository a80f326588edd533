import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Ends, when the HTTP server closes, the connections that never sent a byte — a browser's
 * preconnect (Chromium opens a fresh one as soon as its idle one is closed), a probe that opened
 * a socket and waits. Node's `server.close()` ends idle keep-alive connections but not these:
 * they would hold a stop (SIGTERM, `app.close()`) until the server's headers timeout (a minute,
 * then up to its 30 s check). They are ended once the server has stopped listening, so that no
 * new one arrives after; a connection that has sent anything is left to Node. Nothing is done per
 * request: what a connection has read is its own count.
 */
export class UnusedConnections {
  private readonly sockets = new Set<Socket>();

  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // After the listening socket is closed (inside close), so that nothing connects after the sweep.
    const close = server.close.bind(server);
    server.close = ((callback?: (error?: Error) => void) => {
      close(callback);
      this.end();
      return server;
    }) as Server['close'];
  }

  /** Ends every connection that has sent nothing; returns how many. */
  end(): number {
    let ended = 0;
    for (const socket of this.sockets) {
      if (socket.bytesRead > 0) continue;
      socket.destroy();
      ended++;
    }
    return ended;
  }
}
