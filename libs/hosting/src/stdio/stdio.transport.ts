import type { Readable, Writable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { JsonRpcErrorCode, LATEST_PROTOCOL_VERSION } from '#libs/core';
import { McpDispatcher, mcpRequest, RequestEvents, type McpAnswer, type ReplyChannel } from '#libs/protocol';
import { classify, errorResponse, type JsonRpcId } from '#libs/protocol';
import { HostState } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { McpSession } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { LineSplitter } from './line-splitter';

const NO_HEADERS = Object.freeze({});
const PARSE_ERROR = 'Parse error: the body is not valid JSON';

const tooLarge = (limit: number) =>
  `Invalid Request: the message is longer than ${limit} bytes (bodyLimit); it was discarded up to the end of its line`;

/**
 * MCP over newline-delimited JSON on a pair of streams (the process's stdin/stdout). One
 * session for the life of the process; nothing but protocol messages is written to `output`.
 */
@Injectable()
export class StdioTransport {
  private readonly logger = new Logger('McpStdio');
  private session: McpSession | undefined;
  private output: Writable | undefined;
  private closed = false;
  private detach: (() => void) | undefined;
  /** Aborts the requests still open (a listen subscription, a 2026-07-28 call) when the input ends. */
  private readonly lost = new Set<(reason: Error) => void>();

  constructor(
    @InjectHostingOptions() private readonly options: HostingOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly state: HostState,
    private readonly sessions: SessionStore,
    private readonly events: RequestEvents,
  ) {}

  /** The way back of every request: one, as there is one client (made once: nothing allocated per request). */
  private readonly reply: ReplyChannel = {
    send: (message) => this.write(message),
    answer: ({ body }: McpAnswer) =>
      new Promise<void>((resolve) => {
        if (body === undefined || !this.write(body, resolve)) resolve();
      }),
    onLost: (abort) => {
      this.lost.add(abort);
      return () => this.lost.delete(abort);
    },
  };

  /** Starts reading `input`; resolves when it ends. */
  connect(input: Readable, output: Writable): Promise<void> {
    this.session = new McpSession('stdio', LATEST_PROTOCOL_VERSION);
    this.detach = this.sessions.attachLocal(this.session);
    this.output = output;
    this.session.addSink((message) => this.write(message));
    const lines = new LineSplitter(
      this.options.bodyLimit,
      (line) => {
        const text = line.toString('utf8');
        if (text.trim()) void this.receive(text.endsWith('\r') ? text.slice(0, -1) : text);
      },
      () => this.refuse(null, JsonRpcErrorCode.INVALID_REQUEST, tooLarge(this.options.bodyLimit), 'limited'),
    );
    input.on('data', (chunk: Buffer | string) => lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    this.logger.log('Serving MCP on stdio');
    return new Promise((resolve) =>
      input.once('end', () => {
        this.close();
        resolve();
      }),
    );
  }

  /** The stdio session, once connected. */
  get currentSession(): McpSession | undefined {
    return this.closed ? undefined : this.session;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach?.();
    this.session?.close('stdio closed');
    for (const abort of [...this.lost]) abort(new Error('stdio closed'));
    this.lost.clear();
  }

  private async receive(line: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.refuse(null, JsonRpcErrorCode.PARSE_ERROR, PARSE_ERROR, 'invalid');
      return;
    }
    const classified = classify(parsed);
    if ('invalid' in classified) {
      this.refuse(classified.id, JsonRpcErrorCode.INVALID_REQUEST, `Invalid Request: ${classified.invalid}`, 'invalid');
      return;
    }
    if (!this.state.accepting && classified.kind === 'request') {
      this.refuse(classified.message.id!, JsonRpcErrorCode.INVALID_REQUEST, 'The host is shutting down', 'unavailable');
      return;
    }
    try {
      const request = mcpRequest({
        kind: classified.kind,
        message: classified.message,
        session: this.session!,
        principal: this.security.stdioPrincipal,
        transport: 'stdio',
        headers: NO_HEADERS,
      });
      // The host holds the request open until its answer is written (see `RequestLife`).
      await this.dispatcher.dispatch(request, this.reply);
    } catch (error) {
      this.logger.error('Unexpected failure', (error as Error)?.stack ?? String(error));
    }
  }

  /** Answers a line that is no MCP request it can serve, and reports the refusal (metrics, audit). */
  private refuse(
    id: JsonRpcId | null,
    code: number,
    message: string,
    outcome: 'invalid' | 'limited' | 'unavailable',
  ): void {
    this.write(errorResponse(id, code, message));
    this.events.refusal({
      outcome,
      status: code,
      message,
      transport: 'stdio',
      principal: this.security.stdioPrincipal.id,
    });
  }

  /** Writes one message; `written` is told once the stream took it (only when this returns true). */
  private write(message: string, written?: () => void): boolean {
    if (this.closed || !this.output?.writable) return false;
    this.output.write(`${message}\n`, written);
    return true;
  }
}
