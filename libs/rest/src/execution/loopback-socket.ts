import { EventEmitter } from 'node:events';
import { isIPv6, type Socket } from 'node:net';

/**
 * The stand-in for a connection that an in-process request is made "on": it reads and writes
 * nothing (the body is pushed into the request, the response is captured by the response object
 * itself) but answers what frameworks ask of a socket: the peer's address (the MCP client's, else
 * loopback), the TLS
 * flag, timeouts, and a `close` event when the call is abandoned, which `on-finished` and Nest's
 * stream handling listen for. It says it is readable until then: `on-finished` (and so
 * `body-parser`) takes a request on an unreadable socket for one whose body is gone.
 */
export class LoopbackSocket extends EventEmitter {
  readonly remoteFamily: 'IPv4' | 'IPv6';
  readonly remotePort = 0;
  readonly localAddress = '127.0.0.1';
  readonly localPort = 0;
  readonly encrypted = false;
  readable = true;
  writable = true;
  destroyed = false;
  readonly writableLength = 0;
  readonly bytesWritten = 0;
  readonly bytesRead = 0;

  /**
   * @param remoteAddress the peer the route sees (`req.ip`, `req.socket.remoteAddress`): the MCP
   * client's address, so that the application's address-based rules (rate limits, allow-lists)
   * apply to the real client and are not passed by every MCP call as if it were local
   */
  constructor(readonly remoteAddress = '127.0.0.1') {
    super();
    this.remoteFamily = isIPv6(remoteAddress) ? 'IPv6' : 'IPv4';
  }

  address(): { address: string; family: string; port: number } {
    return { address: this.localAddress, family: 'IPv4', port: 0 };
  }

  /** The connection went away: what the peer closing a real socket looks like to its listeners. */
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.writable = false;
    this.readable = false;
    this.emit('close', false);
    return this;
  }

  // Socket tuning calls are accepted and have no effect.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  // Node's request resumes its socket when the body is read; the body is already in the request.
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  cork(): void {}
  uncork(): void {}
  write(): boolean {
    return false;
  }
  end(): this {
    return this;
  }

  /** Typed as the `Socket` Node's request constructor takes; only the members above are used. */
  asSocket(): Socket {
    return this as unknown as Socket;
  }
}
