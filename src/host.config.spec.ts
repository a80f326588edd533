import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnvironment } from './host.config';

describe('validateEnvironment', () => {
  it('gives loopback defaults', () => {
    expect(validateEnvironment({})).toEqual({
      HOST: '127.0.0.1',
      PORT: 3000,
      HTTP_PLATFORM: 'express',
      MCP_MODE: 'stateful',
      MCP_ALLOWED_HOSTS: ['localhost', '127.0.0.1', '[::1]'],
      MCP_ALLOWED_ORIGINS: undefined,
      SUPPORT_READ_ONLY: false,
      SUPPORT_REPORT_STEP_MS: 250,
      AUTH_MODE: 'none',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      OAUTH_ISSUER: undefined,
      OAUTH_JWKS_URI: undefined,
      MCP_RESOURCE_URL: undefined,
      OAUTH_REQUIRED_SCOPES: [],
      IDP_ISSUER: undefined,
      IDP_CLIENT_ID: undefined,
      IDP_CLIENT_SECRET: undefined,
      IDP_TRUSTED_ISSUER: undefined,
      IDP_TRUSTED_JWKS_URI: undefined,
      IDP_TRUSTED_SAME_DIRECTORY: false,
      CIMD_TRUSTED_HOSTS: [],
      CIMD_ALLOW_HOSTS: [],
      CIMD_CA_FILE: undefined,
      CONNECTIONS_KEY: undefined,
      THROTTLE_LIMIT: 120,
      THROTTLE_TTL_MS: 60_000,
      REDIS_URL: undefined,
      AUDIT_SINK: 'jsonl',
      AUDIT_FILE: 'audit/audit.jsonl',
      AUDIT_POLICY: 'fail-closed',
      AUDIT_CHAIN: undefined,
      AUDIT_SYSLOG_HOST: undefined,
      AUDIT_SYSLOG_PORT: undefined,
      AUDIT_SYSLOG_TLS: undefined,
      AUDIT_SYSLOG_CA_FILE: undefined,
      AUDIT_SYSLOG_CERT_FILE: undefined,
      AUDIT_SYSLOG_KEY_FILE: undefined,
      AUDIT_WEBHOOK_URL: undefined,
      AUDIT_WEBHOOK_SECRET: undefined,
      AUDIT_WEBHOOK_CA_FILE: undefined,
      AUDIT_OTLP_LOGS_URL: undefined,
      AUDIT_OTLP_LOGS_HEADERS: {},
      AUDIT_OTLP_LOGS_CA_FILE: undefined,
      DATABASE_URL: undefined,
      APPROVALS_PUBLIC_URL: undefined,
      APPROVALS_WEBHOOK_URL: undefined,
      APPROVALS_WEBHOOK_SECRET: undefined,
      MCP_REQUEST_STATE_SECRET: undefined,
      MCP_REPLICA: undefined,
      MCP_SHUTDOWN_TIMEOUT_MS: 10_000,
      MCP_STDIO_SCOPES: ['tickets:read', 'tickets:write', 'kb:read', 'reports'],
      MCP_STDIO_ROLES: ['admin'],
      REST_APIS_FILE: undefined,
      MCP_TOOL_SEARCH: 'off',
      TRUST_PROXY: [],
      VIRTUAL_SERVERS: 'on',
      VIRTUAL_SERVERS_FILE: 'state/virtual-servers.json',
      CATALOG_PINS_FILE: 'state/catalog-pins.json',
      VIRTUAL_SERVERS_ALLOW_HOSTS: [],
      LOG_LEVEL: 'log',
    });
  });

  it("takes the stdio principal's scopes from the desk's own, and names one it does not have", () => {
    expect(validateEnvironment({ MCP_STDIO_SCOPES: 'tickets:read, kb:read' }).MCP_STDIO_SCOPES).toEqual([
      'tickets:read',
      'kb:read',
    ]);
    expect(validateEnvironment({ MCP_STDIO_SCOPES: '' }).MCP_STDIO_SCOPES).toEqual([]);
    expect(validateEnvironment({ MCP_STDIO_ROLES: '' }).MCP_STDIO_ROLES).toEqual([]);
    expect(() => validateEnvironment({ MCP_STDIO_SCOPES: 'tickets:read,tickets:admin' })).toThrow(
      'MCP_STDIO_SCOPES names "tickets:admin", which is no scope of the desk (tickets:read, tickets:write, kb:read, reports)',
    );
  });

  it('forwards the audit trail to a SIEM from the environment alone: syslog over TLS, a signed webhook, OTLP logs', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'siem-env-')), 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    expect(
      validateEnvironment({
        AUDIT_SYSLOG_HOST: 'siem.internal',
        AUDIT_SYSLOG_CA_FILE: ca,
        AUDIT_WEBHOOK_URL: 'https://collector.example/mcp-audit',
        AUDIT_WEBHOOK_SECRET: 's'.repeat(32),
        AUDIT_OTLP_LOGS_URL: 'https://otel-collector:4318/v1/logs',
        AUDIT_OTLP_LOGS_HEADERS: 'authorization=Bearer%20abc, x-scope=desk',
      }),
    ).toMatchObject({
      AUDIT_SYSLOG_HOST: 'siem.internal',
      AUDIT_SYSLOG_PORT: 6514,
      AUDIT_SYSLOG_TLS: 'on',
      AUDIT_SYSLOG_CA_FILE: ca,
      AUDIT_WEBHOOK_URL: 'https://collector.example/mcp-audit',
      AUDIT_OTLP_LOGS_HEADERS: { authorization: 'Bearer abc', 'x-scope': 'desk' },
    });
  });

  it.each([
    {},
    {
      AUDIT_SYSLOG_HOST: 'siem.internal',
      AUDIT_WEBHOOK_URL: 'https://c.example/a',
      AUDIT_WEBHOOK_SECRET: 's'.repeat(32),
    },
  ])('validates what it returns again as it did (ConfigModule puts it in the environment): %j', (given) => {
    const once = validateEnvironment(given);
    // What ConfigModule writes into process.env: its strings, numbers and booleans.
    const written = Object.entries(once).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value));
    const again = validateEnvironment(Object.fromEntries(written.map(([key, value]) => [key, String(value)])));
    expect(Object.fromEntries(Object.keys(given).map((key) => [key, again[key as keyof typeof again]]))).toEqual(given);
    expect([again.AUDIT_SYSLOG_PORT, again.AUDIT_SYSLOG_TLS]).toEqual([once.AUDIT_SYSLOG_PORT, once.AUDIT_SYSLOG_TLS]);
  });

  it('names every problem of the forwarding variables at once, each with its fix', () => {
    const error = (() => {
      try {
        validateEnvironment({
          AUDIT_SYSLOG_HOST: 'siem.internal',
          AUDIT_SYSLOG_PORT: '65536',
          AUDIT_SYSLOG_TLS: 'yes',
          AUDIT_SYSLOG_CA_FILE: '/nonexistent/ca.pem',
          AUDIT_SYSLOG_CERT_FILE: '/nonexistent/cert.pem',
          AUDIT_WEBHOOK_URL: 'http://collector.example/mcp-audit',
          AUDIT_WEBHOOK_SECRET: 'short',
          AUDIT_OTLP_LOGS_HEADERS: 'authorization',
        });
      } catch (thrown) {
        return (thrown as Error).message;
      }
    })();
    expect(error?.split('\n  - ').slice(1)).toEqual([
      'AUDIT_OTLP_LOGS_HEADERS is set without AUDIT_OTLP_LOGS_URL: set AUDIT_OTLP_LOGS_URL (the collector’s logs endpoint), or unset AUDIT_OTLP_LOGS_HEADERS',
      'AUDIT_SYSLOG_PORT="65536" must be an integer from 1 to 65535 (6514: syslog over TLS)',
      'AUDIT_SYSLOG_TLS="yes" must be "on" (default: RFC 5425) or "off" (plain TCP, on a trusted network only)',
      'AUDIT_SYSLOG_CA_FILE=/nonexistent/ca.pem cannot be read (ENOENT): give a PEM file',
      'AUDIT_SYSLOG_CERT_FILE=/nonexistent/cert.pem cannot be read (ENOENT): give a PEM file',
      'AUDIT_SYSLOG_CERT_FILE and AUDIT_SYSLOG_KEY_FILE go together (the desk’s client certificate for mutual TLS)',
      'AUDIT_WEBHOOK_URL="http://collector.example/mcp-audit" would send the records unencrypted across the network: use https',
      'AUDIT_WEBHOOK_SECRET must be set, at least 32 characters (e.g. openssl rand -hex 32), shared with the receiver that checks the signature',
    ]);
    expect(() => validateEnvironment({ AUDIT_SINK: 'off', AUDIT_WEBHOOK_URL: 'https://c.example/a' })).toThrow(
      'AUDIT_WEBHOOK_URL forward the audit trail, which AUDIT_SINK=off turns off: set AUDIT_SINK to jsonl or postgres, or unset them',
    );
  });

  it('takes a shutdown timeout in whole milliseconds', () => {
    expect(validateEnvironment({ MCP_SHUTDOWN_TIMEOUT_MS: '2500' }).MCP_SHUTDOWN_TIMEOUT_MS).toBe(2_500);
    expect(() => validateEnvironment({ MCP_SHUTDOWN_TIMEOUT_MS: '2.5s' })).toThrow(
      'MCP_SHUTDOWN_TIMEOUT_MS="2.5s" must be a whole number of milliseconds (default 10000)',
    );
  });

  it('takes a replica name as the McpModule option does, and leaves it unset when empty', () => {
    expect(validateEnvironment({ MCP_REPLICA: 'desk-7f9c4-x2x9z' }).MCP_REPLICA).toBe('desk-7f9c4-x2x9z');
    expect(validateEnvironment({ MCP_REPLICA: 'eu-1.desk_a:2' }).MCP_REPLICA).toBe('eu-1.desk_a:2');
    expect(validateEnvironment({ MCP_REPLICA: 'r'.repeat(64) }).MCP_REPLICA).toBe('r'.repeat(64));
    expect(validateEnvironment({ MCP_REPLICA: '' }).MCP_REPLICA).toBeUndefined();
    expect(() => validateEnvironment({ MCP_REPLICA: 'desk eu/1' })).toThrow(
      'Invalid environment:\n  - MCP_REPLICA="desk eu/1" must be at most 64 letters, digits, ".", "_", ":" or "-" (e.g. desk-eu-1)',
    );
    expect(() => validateEnvironment({ MCP_REPLICA: 'r'.repeat(65) })).toThrow(
      /MCP_REPLICA="r{65}" must be at most 64/,
    );
  });

  it('takes a request-state secret of at least 32 bytes', () => {
    const secret = 'a-request-state-secret-of-32-bytes!';
    expect(validateEnvironment({ MCP_REQUEST_STATE_SECRET: secret }).MCP_REQUEST_STATE_SECRET).toBe(secret);
    expect(() => validateEnvironment({ MCP_REQUEST_STATE_SECRET: 'too-short' })).toThrow(
      'MCP_REQUEST_STATE_SECRET must be at least 32 bytes (e.g. `openssl rand -base64 48`)',
    );
  });

  it('needs DATABASE_URL for the PostgreSQL audit sink, and says which values are allowed', () => {
    expect(() => validateEnvironment({ AUDIT_SINK: 'postgres' })).toThrow(
      'AUDIT_DATABASE_URL or DATABASE_URL must be set (postgres://user:password@host:5432/db) when AUDIT_SINK=postgres',
    );
    expect(() => validateEnvironment({ AUDIT_SINK: 'kafka', AUDIT_POLICY: 'maybe' })).toThrow(
      /AUDIT_SINK="kafka" must be "jsonl", "postgres" or "off"\n {2}- AUDIT_POLICY="maybe" must be "fail-closed" or "buffered"/,
    );
    expect(validateEnvironment({ AUDIT_SINK: 'postgres', DATABASE_URL: 'postgres://u:p@db:5432/mcp' })).toMatchObject({
      AUDIT_SINK: 'postgres',
      DATABASE_URL: 'postgres://u:p@db:5432/mcp',
    });
  });

  it('keeps the audit trail in the desk database unless AUDIT_DATABASE_URL names its own', () => {
    const desk = 'postgres://desk:p@db:5432/desk';
    expect(validateEnvironment({ DATABASE_URL: desk }).AUDIT_DATABASE_URL).toBe(desk);
    expect(
      validateEnvironment({ DATABASE_URL: desk, AUDIT_DATABASE_URL: 'postgresql://audit:p@audit-db:5432/audit' }),
    ).toMatchObject({ DATABASE_URL: desk, AUDIT_DATABASE_URL: 'postgresql://audit:p@audit-db:5432/audit' });
    expect(
      validateEnvironment({ AUDIT_SINK: 'postgres', AUDIT_DATABASE_URL: 'postgres://a@audit-db/audit' }),
    ).toMatchObject({ DATABASE_URL: undefined, AUDIT_DATABASE_URL: 'postgres://a@audit-db/audit' });
    expect(() => validateEnvironment({ AUDIT_DATABASE_URL: 'mysql://audit-db/audit' })).toThrow(
      'AUDIT_DATABASE_URL must start with postgres:// or postgresql://',
    );
  });

  it('switches tool search on, or to listing only its meta-tools', () => {
    expect(validateEnvironment({}).MCP_TOOL_SEARCH).toBe('off');
    expect(validateEnvironment({ MCP_TOOL_SEARCH: 'list-only' }).MCP_TOOL_SEARCH).toBe('list-only');
    expect(() => validateEnvironment({ MCP_TOOL_SEARCH: 'yes' })).toThrow(
      'MCP_TOOL_SEARCH="yes" must be "off", "on", "list-only"',
    );
  });

  it('takes the load balancers to trust as addresses and CIDR ranges, naming each one that is not', () => {
    expect(validateEnvironment({}).TRUST_PROXY).toEqual([]);
    expect(validateEnvironment({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
    ]);
    expect(() => validateEnvironment({ TRUST_PROXY: 'balancer,10.0.0.0/40' })).toThrow(
      'Invalid environment:\n' +
        '  - TRUST_PROXY entry "balancer" must be an IP address or CIDR range of your load balancers (e.g. 10.0.0.0/8,127.0.0.1)\n' +
        '  - TRUST_PROXY entry "10.0.0.0/40" must be an IP address or CIDR range of your load balancers (e.g. 10.0.0.0/8,127.0.0.1)',
    );
  });

  it('adds configured hosts and origins', () => {
    const env = validateEnvironment({
      MCP_ALLOWED_HOSTS: 'desk.example, mcp.desk.example',
      MCP_ALLOWED_ORIGINS: 'https://desk.example',
    });
    expect(env.MCP_ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]', 'desk.example', 'mcp.desk.example']);
    expect(env.MCP_ALLOWED_ORIGINS).toEqual(['https://desk.example']);
  });

  it('needs the issuer, the JWKS and the resource URL for OAuth', () => {
    expect(() => validateEnvironment({ AUTH_MODE: 'oauth', OAUTH_ISSUER: 'https://id.example' })).toThrow(
      'Invalid environment:\n  - OAUTH_JWKS_URI must be an absolute URL when AUTH_MODE=oauth\n  - MCP_RESOURCE_URL must be an absolute URL when AUTH_MODE=oauth',
    );
    const env = validateEnvironment({
      AUTH_MODE: 'oauth',
      OAUTH_ISSUER: 'https://id.example',
      OAUTH_JWKS_URI: 'https://id.example/jwks',
      MCP_RESOURCE_URL: 'https://mcp.example/mcp',
      OAUTH_REQUIRED_SCOPES: 'mcp',
    });
    expect(env).toMatchObject({ AUTH_MODE: 'oauth', OAUTH_REQUIRED_SCOPES: ['mcp'] });
  });

  it('runs the authorization server with AUTH_MODE=facade, and names what it lacks', () => {
    expect(() =>
      validateEnvironment({ AUTH_MODE: 'facade', IDP_TRUSTED_ISSUER: 'https://idp', CONNECTIONS_KEY: 'short' }),
    ).toThrow(
      [
        'Invalid environment:',
        '  - MCP_RESOURCE_URL must be an absolute URL when AUTH_MODE=facade',
        '  - IDP_ISSUER must be an absolute URL when AUTH_MODE=facade',
        "  - IDP_CLIENT_ID must be set when AUTH_MODE=facade (the desk's registration at the IdP)",
        "  - IDP_CLIENT_SECRET must be set when AUTH_MODE=facade (the desk's registration at the IdP)",
        '  - IDP_TRUSTED_ISSUER and IDP_TRUSTED_JWKS_URI go together',
        '  - CONNECTIONS_KEY must be 32 bytes, base64 (openssl rand -base64 32)',
      ].join('\n'),
    );
    expect(
      validateEnvironment({
        AUTH_MODE: 'facade',
        MCP_RESOURCE_URL: 'https://desk.example/mcp',
        IDP_ISSUER: 'https://login.example',
        IDP_CLIENT_ID: 'desk',
        IDP_CLIENT_SECRET: 'secret',
      }),
    ).toMatchObject({ AUTH_MODE: 'facade', IDP_ISSUER: 'https://login.example', IDP_CLIENT_ID: 'desk' });
  });

  it('takes the CIMD trust policy as host lists, and names an entry that is no host', () => {
    expect(
      validateEnvironment({
        CIMD_TRUSTED_HOSTS: 'clients.corp.example, *.apps.corp.example',
        CIMD_ALLOW_HOSTS: 'intranet',
      }),
    ).toMatchObject({
      CIMD_TRUSTED_HOSTS: ['clients.corp.example', '*.apps.corp.example'],
      CIMD_ALLOW_HOSTS: ['intranet'],
    });
    expect(() =>
      validateEnvironment({ CIMD_TRUSTED_HOSTS: 'https://clients.corp.example', CIMD_ALLOW_HOSTS: '*.corp.example' }),
    ).toThrow(
      [
        'Invalid environment:',
        '  - CIMD_TRUSTED_HOSTS entry "https://clients.corp.example" must be a host name (no scheme, port or path), or *.domain for every host under it',
        '  - CIMD_ALLOW_HOSTS entry "*.corp.example" must be a host name (no scheme, port or path)',
      ].join('\n'),
    );
  });

  it('names every bad variable', () => {
    expect(() => validateEnvironment({ PORT: 'http', MCP_MODE: 'sometimes', SUPPORT_READ_ONLY: 'yes' })).toThrow(
      'Invalid environment:\n  - PORT="http" must be an integer from 0 to 65535\n  - MCP_MODE="sometimes" must be "stateful" or "stateless"\n  - SUPPORT_READ_ONLY="yes" must be "true" or "false"',
    );
  });
});
