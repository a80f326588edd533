import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What an MCP client keeps of its OAuth state, as the SDK v1 and v2 clients' `OAuthClientProvider`
 * asks for it: where the user is sent back, the client's metadata (or its metadata document URL),
 * what registration returned, the tokens, the PKCE verifier. `authorizationUrl` is where the client
 * would open the browser.
 */
export class TestOAuthProvider {
  authorizationUrl: URL | undefined;
  protected information: Record<string, unknown> | undefined;
  protected saved: Record<string, unknown> | undefined;
  private verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata() {
    return {
      client_name: 'identity e2e client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.information as never;
  }

  saveClientInformation(information: Record<string, unknown>) {
    this.information = information;
  }

  tokens() {
    return this.saved as never;
  }

  saveTokens(tokens: Record<string, unknown>) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  // SEP-2352: the SDK v2 client checks that the code comes back from the server it started at.
  private discovery: unknown;

  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery as never;
  }
}

/**
 * An HTTPS server on loopback with a self-signed certificate for 127.0.0.1, serving JSON documents
 * by path; `requests` lists the paths asked, in order (what an authorization server fetched).
 */
export async function startDocumentServer(
  documents: (base: string) => Record<string, unknown>,
): Promise<{ base: string; ca: string; requests: string[]; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
  let served: Record<string, unknown> = {};
  const requests: string[] = [];
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
    requests.push(req.url ?? '');
    const document = served[req.url ?? ''];
    if (document === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  served = documents(base);
  return { base, ca, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
