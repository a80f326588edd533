import type { Readable, Writable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { JsonRpcErrorCode, LATEST_PROTOCOL_VERSION } from '#libs/core';
import { McpDispatcher, type DispatchScope } from '#libs/protocol';
import { classify, errorResponse, PARSE_ERROR_RESPONSE } from '#libs/protocol';
import { HostState } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { McpSession } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { LineSplitter } from './line-splitter';

const NO_HEADERS = Object.freeze({});

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
  ) {}

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
      () => this.write(errorResponse(null, JsonRpcErrorCode.INVALID_REQUEST, tooLarge(this.options.bodyLimit))),
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
      this.write(PARSE_ERROR_RESPONSE);
      return;
    }
    const classified = classify(parsed);
    if ('invalid' in classified) {
      this.write(
        errorResponse(classified.id, JsonRpcErrorCode.INVALID_REQUEST, `Invalid Request: ${classified.invalid}`),
      );
      return;
    }
    if (!this.state.accepting && classified.kind === 'request') {
      this.write(errorResponse(classified.message.id!, JsonRpcErrorCode.INVALID_REQUEST, 'The host is shutting down'));
      return;
    }
    const scope: DispatchScope = {
      session: this.session!,
      transport: 'stdio',
      principal: this.security.stdioPrincipal,
      headers: NO_HEADERS,
      notify: (message) => this.write(message),
      onLost: (abort) => {
        this.lost.add(abort);
        return () => this.lost.delete(abort);
      },
    };
    try {
      const response = await this.dispatcher.dispatch(classified.kind, classified.message, scope);
      if (response !== undefined) this.write(response);
    } catch (error) {
      this.logger.error('Unexpected failure', (error as Error)?.stack ?? String(error));
    }
  }

  private write(message: string): boolean {
    if (this.closed || !this.output?.writable) return false;
    this.output.write(`${message}\n`);
    return true;
  }
}
