import { Inject } from '@nestjs/common';
import { ANONYMOUS_PRINCIPAL, optionChecks, type McpPrincipal, type OptionReport } from '#libs/core';
import type { McpAuthOptions } from './auth/auth-options.interface';
import { checkAuthOptions } from './auth/auth-options.resolver';
import { resolveAuditOptions, type ResolvedAuditOptions } from './audit/audit-options';
import type { OriginHostOptions } from './http/origin-host.policy';
import { resolveTrustProxy, type ClientAddresses } from './http/client-addresses';
import { SecretRedactor } from './redaction/secret-redactor';

/** What the security library needs of the module's options: who may call, what is refused, what is recorded. */
export interface SecurityOptions {
  auth: McpAuthOptions;
  /** Failed authentications per client address before it is locked out for the window. */
  authFailureLimit: { limit: number; windowMs: number };
  /** Removes secrets from results and logged errors; `undefined` when no pattern applies. */
  redactor: SecretRedactor | undefined;
  /** `undefined`: no audit trail. */
  audit: ResolvedAuditOptions | undefined;
  /** The principal of stdio calls. */
  stdioPrincipal: McpPrincipal;
  /** The Host/Origin check (DNS-rebinding protection) of every HTTP surface. */
  originHost: OriginHostOptions;
  /** Each HTTP request's client address, through the proxies of `trustProxy`. */
  clientAddresses: ClientAddresses;
}

/** Token of the resolved `SecurityOptions`. */
export const MCP_SECURITY_OPTIONS = Symbol('MCP:SECURITY_OPTIONS');

/** Injects the `SecurityOptions`. */
export const InjectSecurityOptions = (): ParameterDecorator => Inject(MCP_SECURITY_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const SECURITY_OPTION_KEYS = [
  'auth',
  'authFailureLimit',
  'redact',
  'audit',
  'stdioPrincipal',
  'allowedOrigins',
  'allowedHosts',
  'cors',
  'trustProxy',
] as const;

const DEFAULT_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const ORIGIN = /^https?:\/\/[^/]+$/;

/**
 * Validates the security options and merges their defaults.
 * @param report called once per problem, with how to fix it
 */
export function resolveSecurityOptions(o: Record<string, unknown>, report: OptionReport): SecurityOptions {
  checkAuthOptions(o.auth, report, o.authorizationServer !== undefined);
  const redact = (o.redact ?? {}) as { patterns?: (RegExp | string)[]; builtIn?: boolean };
  const patterns = redact.patterns ?? [];
  for (const pattern of patterns) {
    try {
      if (typeof pattern === 'string') new RegExp(pattern);
    } catch (error) {
      report(
        'redact.patterns',
        `"${pattern}" is not a regular expression: ${(error as Error).message}`,
        'escape it, or pass a RegExp literal',
      );
    }
  }
  const builtIn = optionChecks(redact as Record<string, unknown>, report, 'redact.').flag('builtIn', true);
  const authFailureLimit = o.authFailureLimit as { limit: number; windowMs: number } | undefined;
  if (
    authFailureLimit !== undefined &&
    (!Number.isInteger(authFailureLimit?.limit) ||
      authFailureLimit.limit < 1 ||
      !Number.isInteger(authFailureLimit?.windowMs) ||
      authFailureLimit.windowMs < 1)
  ) {
    report(
      'authFailureLimit',
      'needs integer "limit" ≥ 1 and "windowMs" ≥ 1',
      'e.g. authFailureLimit: { limit: 20, windowMs: 60_000 }',
    );
  }
  const stdio = o.stdioPrincipal as { id?: unknown; scopes?: string[]; roles?: string[] } | undefined;
  if (stdio !== undefined && (typeof stdio?.id !== 'string' || !stdio.id)) {
    report(
      'stdioPrincipal',
      'needs a non-empty "id"',
      "e.g. stdioPrincipal: { id: 'local-operator', scopes: ['tickets:read'] }",
    );
  }
  const audit = resolveAuditOptions(o.audit, report);
  return {
    auth: (o.auth as McpAuthOptions | undefined) ?? { mode: 'none' },
    authFailureLimit: authFailureLimit ?? { limit: 20, windowMs: 60_000 },
    redactor: builtIn || patterns.length > 0 ? new SecretRedactor(patterns, builtIn) : undefined,
    audit,
    stdioPrincipal:
      stdio && typeof stdio.id === 'string'
        ? { id: stdio.id, scopes: stdio.scopes ?? [], roles: stdio.roles ?? [], claims: {} }
        : ANONYMOUS_PRINCIPAL,
    originHost: resolveOriginHost(o, report),
    clientAddresses: resolveTrustProxy(o.trustProxy, report),
  };
}

function resolveOriginHost(o: Record<string, unknown>, report: OptionReport): OriginHostOptions {
  const stringList = (key: 'allowedOrigins' | 'allowedHosts') => {
    const value = o[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !item)) {
      report(
        key,
        'must be an array of non-empty strings',
        `e.g. ${key}: ${key === 'allowedHosts' ? "['mcp.example.com']" : "['https://app.example.com']"}`,
      );
      return undefined;
    }
    return value as string[];
  };
  const origins = stringList('allowedOrigins');
  origins?.forEach((origin) => {
    if (!ORIGIN.test(origin))
      report(
        'allowedOrigins',
        `"${origin}" is not an origin`,
        "write scheme://host[:port] with no path, e.g. 'https://app.example.com'",
      );
  });
  const hosts = stringList('allowedHosts');
  const cors = o.cors as { origins?: unknown } | undefined;
  const corsOrigins = Array.isArray(cors?.origins)
    ? cors.origins.filter((origin): origin is string => typeof origin === 'string')
    : [];
  return {
    allowedOrigins: origins && new Set([...origins, ...corsOrigins].map((origin) => origin.toLowerCase())),
    allowedHosts: hosts?.includes('*')
      ? undefined
      : new Set((hosts ?? DEFAULT_HOSTS).map((host) => host.toLowerCase())),
    cors: cors === undefined ? undefined : { origins: new Set(corsOrigins.map((origin) => origin.toLowerCase())) },
  };
}
