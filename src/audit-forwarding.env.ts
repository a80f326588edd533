import { accessSync, constants } from 'node:fs';

/**
 * Where the desk forwards its audit trail besides its own sink (a SIEM): each group set turns one
 * forwarding sink on (`audit.forward`, docs/audit.md; the variables: docs/deployment.md). Files
 * are paths, read at start-up.
 */
export interface AuditForwardingEnvironment {
  /** Syslog over TLS (RFC 5425): the server; unset, no syslog forwarding (and no port or TLS setting). */
  AUDIT_SYSLOG_HOST: string | undefined;
  /** 6514 by default, with a host. */
  AUDIT_SYSLOG_PORT: number | undefined;
  /** `on` (default, with a host): TLS; `off`: plain TCP, on a trusted network only. */
  AUDIT_SYSLOG_TLS: 'on' | 'off' | undefined;
  /** PEM: a private CA of the syslog server; the desk's client certificate and key for mutual TLS. */
  AUDIT_SYSLOG_CA_FILE: string | undefined;
  AUDIT_SYSLOG_CERT_FILE: string | undefined;
  AUDIT_SYSLOG_KEY_FILE: string | undefined;
  /** A signed HTTPS webhook: the receiver, the HMAC key it checks (≥ 32 characters), its private CA. */
  AUDIT_WEBHOOK_URL: string | undefined;
  AUDIT_WEBHOOK_SECRET: string | undefined;
  AUDIT_WEBHOOK_CA_FILE: string | undefined;
  /** OTLP/HTTP logs: the collector's `/v1/logs` URL, headers (`name=value,…`, values URL-encoded), its private CA. */
  AUDIT_OTLP_LOGS_URL: string | undefined;
  AUDIT_OTLP_LOGS_HEADERS: Record<string, string>;
  AUDIT_OTLP_LOGS_CA_FILE: string | undefined;
}

type Name = keyof AuditForwardingEnvironment;

const SYSLOG_DETAILS = [
  'AUDIT_SYSLOG_PORT',
  'AUDIT_SYSLOG_TLS',
  'AUDIT_SYSLOG_CA_FILE',
  'AUDIT_SYSLOG_CERT_FILE',
  'AUDIT_SYSLOG_KEY_FILE',
] as const;
const WEBHOOK_DETAILS = ['AUDIT_WEBHOOK_SECRET', 'AUDIT_WEBHOOK_CA_FILE'] as const;
const OTLP_DETAILS = ['AUDIT_OTLP_LOGS_HEADERS', 'AUDIT_OTLP_LOGS_CA_FILE'] as const;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Reads the forwarding variables, pushing every problem (each with its fix) onto `problems`: what
 * goes together, the port, the URLs (https; plain http to loopback only, as the sinks allow), the
 * webhook's secret, headers, and files that can be read — and none of it while the trail is off.
 */
export function forwardingEnvironment(
  env: Record<string, unknown>,
  auditSink: unknown,
  problems: string[],
): AuditForwardingEnvironment {
  const given = (name: Name) => (typeof env[name] === 'string' && env[name] ? (env[name] as string) : undefined);
  const groups = [
    ['AUDIT_SYSLOG_HOST', SYSLOG_DETAILS, 'the syslog server'],
    ['AUDIT_WEBHOOK_URL', WEBHOOK_DETAILS, 'the HTTPS receiver'],
    ['AUDIT_OTLP_LOGS_URL', OTLP_DETAILS, 'the collector’s logs endpoint'],
  ] as const;
  const set = groups.flatMap(([main, details]) => [main, ...details]).filter((name) => given(name) !== undefined);
  if (auditSink === 'off' && set.length > 0)
    problems.push(
      `${set.join(', ')} forward the audit trail, which AUDIT_SINK=off turns off: set AUDIT_SINK to jsonl or postgres, or unset them`,
    );
  for (const [main, details, what] of groups)
    if (given(main) === undefined)
      for (const name of details.filter((detail) => given(detail) !== undefined))
        problems.push(`${name} is set without ${main}: set ${main} (${what}), or unset ${name}`);

  const file = (name: Name) => {
    const path = given(name);
    if (path === undefined) return undefined;
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      problems.push(`${name}=${path} cannot be read (${(error as NodeJS.ErrnoException).code}): give a PEM file`);
    }
    return path;
  };
  const url = (name: Name, example: string) => {
    const value = given(name);
    if (value === undefined) return undefined;
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      problems.push(`${name}="${value}" must be an https URL, e.g. ${example}`);
    else if (parsed.protocol === 'http:' && !LOOPBACK.has(parsed.hostname))
      problems.push(`${name}="${value}" would send the records unencrypted across the network: use https`);
    return value;
  };

  const port = Number(given('AUDIT_SYSLOG_PORT') ?? 6514);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    problems.push(
      `AUDIT_SYSLOG_PORT="${given('AUDIT_SYSLOG_PORT')}" must be an integer from 1 to 65535 (6514: syslog over TLS)`,
    );
  const tls = given('AUDIT_SYSLOG_TLS') ?? 'on';
  if (tls !== 'on' && tls !== 'off')
    problems.push(
      `AUDIT_SYSLOG_TLS="${tls}" must be "on" (default: RFC 5425) or "off" (plain TCP, on a trusted network only)`,
    );
  const [caFile, certFile, keyFile] = (
    ['AUDIT_SYSLOG_CA_FILE', 'AUDIT_SYSLOG_CERT_FILE', 'AUDIT_SYSLOG_KEY_FILE'] as const
  ).map(file);
  if ((certFile === undefined) !== (keyFile === undefined))
    problems.push(
      'AUDIT_SYSLOG_CERT_FILE and AUDIT_SYSLOG_KEY_FILE go together (the desk’s client certificate for mutual TLS)',
    );
  if (tls === 'off' && (caFile ?? certFile ?? keyFile) !== undefined)
    problems.push('AUDIT_SYSLOG_CA_FILE, _CERT_FILE and _KEY_FILE are for TLS, which AUDIT_SYSLOG_TLS=off turns off');

  const webhookUrl = url('AUDIT_WEBHOOK_URL', 'https://siem.example/mcp-audit');
  const secret = given('AUDIT_WEBHOOK_SECRET');
  if (webhookUrl !== undefined && (secret ?? '').length < 32)
    problems.push(
      'AUDIT_WEBHOOK_SECRET must be set, at least 32 characters (e.g. openssl rand -hex 32), shared with the receiver that checks the signature',
    );

  const headers: Record<string, string> = {};
  const otlpUrl = url('AUDIT_OTLP_LOGS_URL', 'https://otel-collector:4318/v1/logs');
  const pairs = otlpUrl === undefined ? [] : (given('AUDIT_OTLP_LOGS_HEADERS') ?? '').split(',');
  for (const pair of pairs.filter((item) => item.trim())) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = at < 1 ? undefined : decoded(pair.slice(at + 1).trim());
    if (value === undefined || !/^[A-Za-z0-9-]+$/.test(name))
      problems.push(
        `AUDIT_OTLP_LOGS_HEADERS entry "${pair}" must be name=value (values URL-encoded), e.g. authorization=Bearer%20abc`,
      );
    else headers[name.toLowerCase()] = value;
  }

  // Defaults only with a host: what is returned is set in the environment (ConfigModule), and
  // validated again from there.
  const syslogHost = given('AUDIT_SYSLOG_HOST');
  return {
    AUDIT_SYSLOG_HOST: syslogHost,
    AUDIT_SYSLOG_PORT: syslogHost === undefined ? undefined : port,
    AUDIT_SYSLOG_TLS: syslogHost === undefined ? undefined : tls === 'off' ? 'off' : 'on',
    AUDIT_SYSLOG_CA_FILE: caFile,
    AUDIT_SYSLOG_CERT_FILE: certFile,
    AUDIT_SYSLOG_KEY_FILE: keyFile,
    AUDIT_WEBHOOK_URL: webhookUrl,
    AUDIT_WEBHOOK_SECRET: secret,
    AUDIT_WEBHOOK_CA_FILE: file('AUDIT_WEBHOOK_CA_FILE'),
    AUDIT_OTLP_LOGS_URL: otlpUrl,
    AUDIT_OTLP_LOGS_HEADERS: headers,
    AUDIT_OTLP_LOGS_CA_FILE: file('AUDIT_OTLP_LOGS_CA_FILE'),
  };
}

/** A URL-encoded value decoded, or `undefined` when it is not one. */
function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
