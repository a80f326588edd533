import { hostname } from 'node:os';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { guardedLookup, literalRefusal } from '../outbound/outbound-connector';
import { OutboundPolicies } from '../outbound/outbound-policies';
import type { OutboundPolicy } from '../outbound/outbound-policy';
import { batchBytesOf } from './audit-chain';
import type { AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { sinkOptionsError } from './sink-options.error';

/** Options of `SyslogAuditSink`. */
export interface SyslogAuditSinkOptions {
  /** The syslog server (rsyslog, syslog-ng, a SIEM's collector). */
  host: string;
  port: number;
  /**
   * TLS (RFC 5425): `true` with the system's CAs, or the `node:tls` options to use (`ca` of a
   * private CA, `cert`/`key` for mutual TLS, `servername`). Leave out only on a trusted network.
   */
  tls?: boolean | ConnectionOptions;
  /** The sink's name in health and metrics (give each of several syslog sinks its own). @default 'syslog' */
  name?: string;
  /** RFC 5424 facility number. @default 13 (log audit) */
  facility?: number;
  /** APP-NAME of every message. @default 'nest-mcp-host' */
  appName?: string;
  /** HOSTNAME of every message. @default the host name */
  hostname?: string;
  /** Longest wait for the connection or a batch's write (ms). @default 5_000 */
  timeoutMs?: number;
}

/** `[` `]` `"` and `\` are escaped in an SD-PARAM value (RFC 5424 §6.3.3). */
const sdValue = (value: string): string => value.replace(/["\\\]]/g, (c) => `\\${c}`);
/** PRINTUSASCII without spaces, at most `max` characters, or the NILVALUE. */
const header = (value: string, max: number): string => value.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';

/**
 * Forwards audit records to a syslog server as RFC 5424 messages over TCP, with TLS (RFC 5425),
 * framed by octet counting (RFC 6587): one message per record, its MSG the record's JSON line
 * exactly as the trail stored it (hash included), so `npm run audit:verify -- --lines FILE`
 * checks the chain in what the server wrote. The structured data repeats chain, seq and
 * outcome for the SIEM's filters (`[mcpAudit@32473 chain="desk-1" seq="42" outcome="ok"]`).
 *
 * TCP syslog has no acknowledgement: a batch whose write failed is sent again on a new
 * connection, so a server may store a record twice (verification skips exact repeats), and what
 * the server had not read when the connection broke can be lost (RFC 6587 §3.4). Use it with
 * `audit.forward` (records delivered from a spool, retried with back-off).
 *
 * @example
 * ```ts
 * audit: {
 *   forward: [new SyslogAuditSink({ host: 'siem.internal', port: 6514, tls: { ca: readFileSync('ca.pem') } })],
 * }
 * ```
 * @throws when an option is invalid (every problem at once)
 */
export class SyslogAuditSink implements AuditSink {
  readonly name: string;
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly facility: number;
  /** Where it may connect: the operator's host (made with the first connection). */
  private reach: OutboundPolicy | undefined;

  constructor(private readonly options: SyslogAuditSinkOptions) {
    const problems: string[] = [];
    if (typeof options?.host !== 'string' || !options.host)
      problems.push('host: give the syslog server, e.g. "siem.internal"');
    if (!Number.isInteger(options?.port) || options.port < 1 || options.port > 65_535)
      problems.push('port: give an integer 1-65535 (6514 for syslog over TLS)');
    const facility = options?.facility ?? 13;
    if (!Number.isInteger(facility) || facility < 0 || facility > 23)
      problems.push('facility: give 0-23 (13: log audit)');
    const timeoutMs = options?.timeoutMs ?? 5_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) problems.push('timeoutMs: give a positive integer');
    if (problems.length > 0) throw sinkOptionsError('SyslogAuditSink', problems);
    this.name = options.name ?? 'syslog';
    this.timeoutMs = timeoutMs;
    // Every message of this sink shares PRI's facility, VERSION, HOSTNAME, APP-NAME, PROCID and MSGID.
    this.prefix = ` ${header(options.hostname ?? hostname(), 255)} ${header(options.appName ?? 'nest-mcp-host', 48)} ${process.pid} audit`;
    this.facility = facility;
  }

  /** Connects now, so that a server that cannot be reached shows in readiness before any record waits. */
  async ping(): Promise<void> {
    await this.connection();
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    const lines = batchBytesOf(records);
    const frames: Buffer[] = [];
    let from = 0;
    for (const record of records) {
      const to = lines.indexOf(0x0a, from);
      const msg = lines.subarray(from, to);
      from = to + 1;
      const head = Buffer.from(
        `<${this.facility * 8 + (record.outcome === 'ok' ? 6 : 5)}>1 ${record.time}${this.prefix} ` +
          `[mcpAudit@32473 chain="${sdValue(record.chain)}" seq="${record.seq}" outcome="${record.outcome}"] `,
      );
      frames.push(Buffer.from(`${head.length + msg.length} `), head, msg);
    }
    const socket = await this.connection();
    await this.write(socket, Buffer.concat(frames));
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (socket && !socket.destroyed) await new Promise<void>((resolve) => socket.end(resolve));
  }

  private write(socket: Socket, data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy(new Error(`the syslog server took no data for ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      socket.write(data, (error) => {
        clearTimeout(timer);
        if (error) {
          this.drop(socket);
          reject(error);
        } else resolve();
      });
    });
  }

  private connection(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed && this.socket.writable) return Promise.resolve(this.socket);
    return (this.connecting ??= this.connect().finally(() => (this.connecting = undefined)));
  }

  private connect(): Promise<Socket> {
    const { host, port, tls } = this.options;
    // Every address the host resolves to is checked before the socket connects (docs/security.md, "Outbound fetches").
    this.reach ??= OutboundPolicies.configured(
      [`tcp://${host.includes(':') ? `[${host}]` : host}`],
      `the audit sink ${this.name}`,
    );
    const refused = literalRefusal(this.reach, host, port);
    if (refused) return Promise.reject(refused);
    const lookup = guardedLookup(this.reach, port);
    return new Promise((resolve, reject) => {
      const ready = tls ? 'secureConnect' : 'connect';
      const socket = tls
        ? tlsConnect({ host, port, servername: host, lookup, ...(tls === true ? {} : tls) })
        : tcpConnect({ host, port, lookup });
      socket.setTimeout(this.timeoutMs, () =>
        socket.destroy(new Error(`no connection to ${host}:${port} within ${this.timeoutMs} ms`)),
      );
      socket.once('error', reject);
      socket.once(ready, () => {
        socket.setTimeout(0);
        socket.off('error', reject);
        socket.setKeepAlive(true);
        // Later errors end this connection; the next batch opens another.
        socket.on('error', () => this.drop(socket));
        socket.on('close', () => this.drop(socket));
        // A syslog server sends nothing: anything it does send is ignored.
        socket.resume();
        this.socket = socket;
        resolve(socket);
      });
    });
  }

  private drop(socket: Socket): void {
    if (this.socket === socket) this.socket = undefined;
    socket.destroy();
  }
}
