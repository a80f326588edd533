import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresAuthorizationServerStore } from 'nest-mcp-host/postgres';
import { authorizationServerOptions } from './auth.config';
import { validateEnvironment } from './host.config';

const FACADE = {
  AUTH_MODE: 'facade',
  MCP_RESOURCE_URL: 'https://desk.example/mcp',
  IDP_ISSUER: 'https://login.example',
  IDP_CLIENT_ID: 'desk',
  IDP_CLIENT_SECRET: 'secret',
};

describe('authorizationServerOptions', () => {
  it('keeps registrations in memory without a database, and takes any metadata document host', () => {
    const options = authorizationServerOptions(validateEnvironment(FACADE))!;
    expect(options.store).toBeUndefined();
    expect(options.clientMetadataDocuments).toEqual({});
  });

  it('keeps them in PostgreSQL with DATABASE_URL, and sets the CIMD policy from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cimd-ca-'));
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const options = authorizationServerOptions(
      validateEnvironment({
        ...FACADE,
        DATABASE_URL: 'postgres://desk@127.0.0.1:1/desk',
        CIMD_TRUSTED_HOSTS: 'clients.corp.example,*.apps.corp.example',
        CIMD_ALLOW_HOSTS: 'clients.corp.example',
        CIMD_CA_FILE: join(dir, 'ca.pem'),
      }),
    )!;
    expect(options.store).toBeInstanceOf(PostgresAuthorizationServerStore);
    expect(options.clientMetadataDocuments).toEqual({
      trustedHosts: ['clients.corp.example', '*.apps.corp.example'],
      allowHosts: ['clients.corp.example'],
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
    });
    await options.store!.close!();
  });

  it('names the CA file it cannot read', () => {
    expect(() =>
      authorizationServerOptions(validateEnvironment({ ...FACADE, CIMD_CA_FILE: '/nonexistent/ca.pem' })),
    ).toThrow(/^CIMD_CA_FILE="\/nonexistent\/ca.pem" cannot be read as PEM certificates: ENOENT/);
  });
});
