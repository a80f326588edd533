import { Logger } from '@nestjs/common';
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Root,
} from '@modelcontextprotocol/sdk/types.js';
import {
  ANONYMOUS_PRINCIPAL,
  McpClientRequestError,
  type McpCallContext,
  type McpCallKind,
  type McpPrincipal,
  type McpCallLogger,
  type McpClientRequestOptions,
  type McpLogLevel,
  type McpTransportKind,
  MCP_LOG_LEVELS,
  RECORD_DOWNSTREAM,
  type McpDownstreamUse,
} from '#libs/core';
import type { CallChannel } from './call-channel.interface';
import type { CallCancellation } from './call-cancellation';

const RANK = new Map(MCP_LOG_LEVELS.map((level, index) => [level, index]));

/** What a transport knows about a call when it starts it. */
export type CallContextInit = Omit<
  McpCallContext,
  | 'caller'
  | 'reportProgress'
  | 'log'
  | 'signal'
  | 'clientCapabilities'
  | 'elicit'
  | 'sample'
  | 'roots'
  | 'closeSseStream'
  | 'completeElicitation'
  | 'continueAsTask'
> & {
  caller?: McpPrincipal;
  progressToken: string | number | undefined;
  channel: CallChannel;
  cancellation: CallCancellation;
  /** Takes the downstream identity the call used, for its audit record (library code calls it through `recordDownstream`). */
  onDownstream?: (use: McpDownstreamUse) => void;
};

const warnings = new Logger('McpCallContext');

const DEFAULT_CLIENT_TIMEOUT_MS = 60_000;

const unreachable = (method: string, why: string) =>
  Promise.reject(new McpClientRequestError(`${method} ${why}`, 'unreachable'));

/**
 * The `McpCallContext` handed to tools. How the call ended is not kept here: the invoker returns
 * it (see `Invocation`), so nothing a tool holds can change what the audit trail records.
 */
export class CallContext implements McpCallContext {
  readonly requestId: string | number;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string;
  readonly kind: McpCallKind;
  readonly target: string;
  readonly transport: McpTransportKind;
  readonly clientInfo: { name: string; version: string } | undefined;
  readonly caller: McpPrincipal;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly remoteAddress: string | undefined;
  /** @internal the call's cancellation state, shared with the transport. */
  readonly cancellation: CallCancellation;
  private readonly progressToken: string | number | undefined;
  private readonly channel: CallChannel;
  private readonly onDownstream: ((use: McpDownstreamUse) => void) | undefined;
  private lastProgress = -Infinity;
  private logger: McpCallLogger | undefined;

  constructor(init: CallContextInit) {
    this.requestId = init.requestId;
    this.sessionId = init.sessionId;
    this.protocolVersion = init.protocolVersion;
    this.kind = init.kind;
    this.target = init.target;
    this.transport = init.transport;
    this.clientInfo = init.clientInfo;
    this.caller = init.caller ?? ANONYMOUS_PRINCIPAL;
    this.headers = init.headers;
    this.meta = init.meta;
    this.remoteAddress = init.remoteAddress;
    this.cancellation = init.cancellation;
    this.progressToken = init.progressToken;
    this.channel = init.channel;
    this.onDownstream = init.onDownstream;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  reportProgress(progress: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.cancellation.isCancelled) return;
    if (!(progress > this.lastProgress)) {
      // The spec requires strictly increasing progress; a client may reject anything else.
      warnings.warn(`${this.target}: progress ${progress} does not increase (last ${this.lastProgress}); not sent`);
      return;
    }
    this.lastProgress = progress;
    this.channel.notify('notifications/progress', {
      progressToken: this.progressToken,
      progress,
      ...(total !== undefined && { total }),
      ...(message !== undefined && { message }),
    });
  }

  closeSseStream(): void {
    this.channel.closeStream();
  }

  /** @internal see `recordDownstream` */
  [RECORD_DOWNSTREAM](use: McpDownstreamUse): void {
    this.onDownstream?.(use);
  }

  completeElicitation(elicitationId: string): void {
    this.channel.notify('notifications/elicitation/complete', { elicitationId });
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> {
    return this.channel.clientCapabilities;
  }

  elicit(params: ElicitRequest['params'], options?: McpClientRequestOptions): Promise<ElicitResult> {
    if (this.channel.requestsUnavailable) return unreachable('elicitation/create', this.channel.requestsUnavailable);
    const urlMode = (params as { mode?: string }).mode === 'url';
    const elicitation = this.clientCapabilities.elicitation as Record<string, unknown> | undefined;
    // A client that declares `elicitation: {}` supports form mode (the 2025-06-18 meaning).
    const supported = urlMode
      ? elicitation?.url !== undefined
      : elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    if (!supported)
      return urlMode
        ? this.unsupported('elicitation', { url: {} }, "elicitation in URL mode ('elicitation.url')")
        : this.unsupported('elicitation', elicitation ? { form: {} } : {}, "elicitation ('elicitation')");
    return this.request('elicitation/create', params, options) as Promise<ElicitResult>;
  }

  sample(params: CreateMessageRequest['params'], options?: McpClientRequestOptions): Promise<CreateMessageResult> {
    if (this.channel.requestsUnavailable)
      return unreachable('sampling/createMessage', this.channel.requestsUnavailable);
    const sampling = this.clientCapabilities.sampling as Record<string, unknown> | undefined;
    if (!sampling) return this.unsupported('sampling', {}, "sampling ('sampling')");
    if ((params as { tools?: unknown[] }).tools?.length && sampling.tools === undefined)
      return this.unsupported('sampling', { tools: {} }, "sampling with tools ('sampling.tools')");
    return this.request('sampling/createMessage', params, options) as Promise<CreateMessageResult>;
  }

  async roots(options?: McpClientRequestOptions): Promise<Root[]> {
    if (this.channel.requestsUnavailable) return unreachable('roots/list', this.channel.requestsUnavailable);
    if (!this.clientCapabilities.roots) return this.unsupported('roots', {}, "roots ('roots')");
    const result = (await this.request('roots/list', {}, options)) as { roots?: Root[] };
    return result.roots ?? [];
  }

  continueAsTask(): Promise<void> {
    return this.channel.continueAsTask?.() ?? Promise.resolve();
  }

  private request(method: string, params: object, options: McpClientRequestOptions | undefined): Promise<unknown> {
    if (this.cancellation.isCancelled)
      return Promise.reject(new McpClientRequestError(`${method} not sent: the call was cancelled`, 'cancelled'));
    return this.channel.request(
      method,
      params as Record<string, unknown>,
      options?.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
      this.signal,
      options,
    );
  }

  /** A request the client lacks the capability for: the channel's answer (2026-07-28: `-32021`), else an error the tool can catch. */
  private unsupported(capability: string, required: Record<string, unknown>, what: string): Promise<never> {
    return (
      this.channel.missingCapability?.(capability, required, what, this.signal) ??
      Promise.reject(
        new McpClientRequestError(
          `The client does not support ${what}: it did not declare that capability in initialize.`,
          'unsupported',
        ),
      )
    );
  }

  get log(): McpCallLogger {
    return (this.logger ??= this.createLogger());
  }

  private createLogger(): McpCallLogger {
    const send = (level: McpLogLevel, data: unknown) => {
      const minimum = this.channel.logLevel;
      if (minimum === 'off') return;
      if (minimum !== undefined && (RANK.get(level) ?? 0) < (RANK.get(minimum) ?? 0)) return;
      this.channel.notify('notifications/message', { level, logger: this.target, data });
    };
    return {
      log: send,
      debug: (data) => send('debug', data),
      info: (data) => send('info', data),
      notice: (data) => send('notice', data),
      warning: (data) => send('warning', data),
      error: (data) => send('error', data),
    };
  }
}
