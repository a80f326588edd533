import { Injectable, Optional } from '@nestjs/common';
import { AuditTrail, type AuditForwarder } from '#libs/security';
import type { McpHealthCheck } from '../options/health-check.interface';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';

export type { McpHealthCheck };

/** One dependency's state in `/health/ready` and the dashboard: a required one that is `down` makes the host not ready. */
export interface DependencyStatus {
  name: string;
  status: 'up' | 'degraded' | 'down';
  required: boolean;
  details?: Record<string, unknown>;
  error?: string;
}

/**
 * Checks the host's dependencies: the audit trail (down under `fail-closed` while it cannot write,
 * degraded under `buffered`), every `healthChecks` entry, and the checks the host's own parts
 * register (the backplane the replicas share state through, with the `cluster` option; the
 * gateway's upstreams), all at once, each with a time limit.
 */
@Injectable()
export class DependencyHealth {
  /** Checks added by the host's own parts (the cluster's backplane, the gateway's upstreams), beside the `healthChecks` option. */
  private readonly added = new Map<string, McpHealthCheck>();

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @Optional() private readonly audit?: AuditTrail,
  ) {}

  /**
   * Adds a check to readiness (or replaces the one of that name); the returned function removes it.
   * @example
   * const remove = health.register({ name: 'upstream:wiki', required: true, check: () => wiki.ping() });
   */
  register(check: McpHealthCheck): () => void {
    this.added.set(check.name, check);
    return () => {
      if (this.added.get(check.name) === check) this.added.delete(check.name);
    };
  }

  async check(): Promise<DependencyStatus[]> {
    const checks = [...this.options.healthChecks, ...this.added.values()].map((check) => this.run(check));
    const audit = this.audit;
    const forwards = audit ? audit.forwarders.map((forwarder) => this.forwardStatus(forwarder)) : [];
    return [
      ...(audit ? [await this.auditStatus(audit)] : []),
      ...(await Promise.all(forwards)),
      ...(await Promise.all(checks)),
    ];
  }

  /**
   * A forwarding sink (a SIEM): `degraded` while it refuses records or cannot be reached (they
   * wait in its spool), never required — a SIEM that is down does not stop the calls.
   */
  private async forwardStatus(forwarder: AuditForwarder): Promise<DependencyStatus> {
    const { lastError, ...details } = forwarder.health();
    const unreachable = await this.run({ name: 'audit-forward', check: () => forwarder.ping() }).then(
      (status) => status.error,
    );
    const error = lastError ?? unreachable;
    return {
      name: `audit-forward:${details.sink}`,
      status: details.state === 'ok' && !unreachable ? 'up' : 'degraded',
      required: false,
      details,
      ...(error !== undefined && { error }),
    };
  }

  /** The trail's own state, and whether its sink answers now (a sink can fail while nothing is written). */
  private async auditStatus(audit: AuditTrail): Promise<DependencyStatus> {
    const health = audit.health();
    const failClosed = health.policy === 'fail-closed';
    const { lastError, forwards: _forwards, ...details } = health;
    const unreachable = await this.run({ name: 'audit', check: () => audit.ping() }).then((status) => status.error);
    const error = lastError ?? unreachable;
    return {
      name: `audit:${health.sink}`,
      status: health.state === 'ok' && !unreachable ? 'up' : failClosed ? 'down' : 'degraded',
      required: failClosed,
      details,
      ...(error !== undefined && { error }),
    };
  }

  private async run({ name, check, required = true, timeoutMs = 2_000 }: McpHealthCheck): Promise<DependencyStatus> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        Promise.resolve().then(check),
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
        ),
      ]);
      const details =
        typeof result === 'object' && result !== null && !Array.isArray(result)
          ? (result as Record<string, unknown>)
          : undefined;
      return { name, status: 'up', required, ...(details && { details }) };
    } catch (error) {
      return {
        name,
        status: required ? 'down' : 'degraded',
        required,
        error: (error as Error)?.message ?? String(error),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
