import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadOpenApiDocument, OpenApiSourceError } from './openapi-source';

const petstore = {
  openapi: '3.1.0',
  info: { title: 'Petstore', version: '1.0.0' },
  servers: [{ url: '/api/v3' }],
  paths: { '/pet/{petId}': { get: { operationId: 'getPetById' } } },
};

const petstoreYaml = [
  'openapi: 3.1.0',
  'info:',
  '  title: Petstore',
  '  version: 1.0.0',
  'servers:',
  '  - url: /api/v3',
  'paths:',
  '  /pet/{petId}:',
  '    get:',
  '      operationId: getPetById',
  '',
].join('\n');

const options = { timeoutMs: 5_000 };

/** The error `promise` rejects with, which must be an `OpenApiSourceError`. */
async function sourceError(promise: Promise<unknown>): Promise<OpenApiSourceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(OpenApiSourceError);
  const sourceError = error as OpenApiSourceError;
  expect(sourceError.name).toBe('OpenApiSourceError');
  expect(sourceError.fix.trim()).not.toBe('');
  return sourceError;
}

/** A real HTTP server on an ephemeral loopback port. */
async function startServer(handle: (path: string, response: ServerResponse) => void) {
  const server: Server = createServer((request, response) => handle(request.url ?? '', response));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  };
  return { base, close };
}

describe('loadOpenApiDocument', () => {
  it('passes a parsed document through, with no URL', async () => {
    const document = { ...petstore };
    const loaded = await loadOpenApiDocument(document, options);
    expect(loaded.document).toBe(document);
    expect(loaded.url).toBeUndefined();
  });

  describe('from a file', () => {
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'openapi-source-'));
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const file = async (name: string, text: string) => {
      const path = join(dir, name);
      await writeFile(path, text, 'utf8');
      return path;
    };

    it('reads a JSON document', async () => {
      const path = await file('petstore.json', JSON.stringify(petstore, null, 2));
      expect(await loadOpenApiDocument(path, options)).toEqual({ document: petstore, url: undefined });
    });

    it('reads a JSON document saved with a byte order mark', async () => {
      const path = await file('bom.json', `\uFEFF${JSON.stringify(petstore)}`);
      expect((await loadOpenApiDocument(path, options)).document).toEqual(petstore);
    });

    it('reads a JSON document that starts with blank lines', async () => {
      const path = await file('padded.json', `\n\n  ${JSON.stringify(petstore)}`);
      expect((await loadOpenApiDocument(path, options)).document).toEqual(petstore);
    });

    it('reads a YAML document, whatever the file is named', async () => {
      const path = await file('petstore.txt', petstoreYaml);
      expect(await loadOpenApiDocument(path, options)).toEqual({ document: petstore, url: undefined });
    });

    it('resolves a relative path from the working directory', async () => {
      const path = await file('relative.json', JSON.stringify(petstore));
      const fromCwd = relative(process.cwd(), path);
      expect(fromCwd.startsWith('/')).toBe(false);
      expect((await loadOpenApiDocument(fromCwd, options)).document).toEqual(petstore);
    });

    it('names the absolute path and ENOENT of a missing file, and points at the working directory', async () => {
      const missing = join(dir, 'nowhere', 'missing.json');
      const error = await sourceError(loadOpenApiDocument(relative(process.cwd(), missing), options));
      expect(error.message).toBe(`cannot be read from ${missing} (ENOENT)`);
      expect(error.fix).toContain('working directory');
      expect(error.fix).toContain(process.cwd());
      expect(error.cause).toMatchObject({ code: 'ENOENT' });
    });

    it('asks for a readable file when the path cannot be read for another reason', async () => {
      const error = await sourceError(loadOpenApiDocument(dir, options));
      expect(error.message).toBe(`cannot be read from ${dir} (EISDIR)`);
      expect(error.fix).not.toContain('working directory');
    });

    it('reports invalid JSON, naming the file and the format', async () => {
      const path = await file('broken.json', '{ "openapi": "3.1.0", }');
      const error = await sourceError(loadOpenApiDocument(path, options));
      expect(error.message).toMatch(new RegExp(`^from ${literal(path)} is not valid JSON: \\S`));
      expect(error.cause).toBeInstanceOf(SyntaxError);
    });

    it('reports invalid YAML, naming the file and the format on one line', async () => {
      const path = await file('broken.yaml', 'openapi: 3.1.0\ninfo: title: Petstore\n');
      const error = await sourceError(loadOpenApiDocument(path, options));
      expect(error.message).toMatch(new RegExp(`^from ${literal(path)} is not valid YAML: \\S`));
      expect(error.message).not.toContain('\n');
    });

    it.each([
      ['a list', '- openapi\n- 3.1.0\n'],
      ['a scalar', 'openapi 3.1.0\n'],
      ['empty', ''],
      ['a JSON list', '[{ "openapi": "3.1.0" }]'],
    ])('reports a document that is %s as not an OpenAPI document', async (_what, text) => {
      const path = await file('not-a-document.yaml', text);
      const error = await sourceError(loadOpenApiDocument(path, options));
      expect(error.message).toBe(`from ${path} is not an OpenAPI document (not an object)`);
    });
  });

  describe('from an http URL', () => {
    let server: Awaited<ReturnType<typeof startServer>>;

    beforeAll(async () => {
      server = await startServer((path, response) => {
        if (path === '/openapi.json') {
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(JSON.stringify(petstore));
        }
        if (path === '/openapi.yaml') {
          response.writeHead(200, { 'content-type': 'application/yaml' });
          return response.end(petstoreYaml);
        }
        if (path === '/list.json') {
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end('[1, 2]');
        }
        if (path === '/hang') return undefined;
        if (path === '/stall') {
          // Headers and the start of a body, then nothing.
          response.writeHead(200, { 'content-type': 'application/json' });
          return void response.write('{"openapi": ');
        }
        if (path === '/huge') {
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) });
          return void response.write('{');
        }
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
      });
    });

    afterAll(async () => {
      await server.close();
    });

    it('fetches a JSON document and returns the URL it came from', async () => {
      const url = `${server.base}/openapi.json`;
      expect(await loadOpenApiDocument(url, options)).toEqual({ document: petstore, url });
    });

    it('fetches a YAML document', async () => {
      const url = `${server.base}/openapi.yaml`;
      expect(await loadOpenApiDocument(url, options)).toEqual({ document: petstore, url });
    });

    it('reports a fetched document that is not an object, naming the URL', async () => {
      const url = `${server.base}/list.json`;
      const error = await sourceError(loadOpenApiDocument(url, options));
      expect(error.message).toBe(`from ${url} is not an OpenAPI document (not an object)`);
    });

    it('reports the status of an error answer', async () => {
      const url = `${server.base}/missing.json`;
      const error = await sourceError(loadOpenApiDocument(url, options));
      expect(error.message).toBe(`cannot be fetched from ${url}: it answered 404`);
    });

    it('gives up on a server that never answers after timeoutMs', async () => {
      const url = `${server.base}/hang`;
      const error = await sourceError(loadOpenApiDocument(url, { timeoutMs: 200 }));
      expect(error.message).toMatch(
        new RegExp(`^cannot be fetched from ${literal(url)}: .*gave no whole answer within 200 ms$`),
      );
    });

    it('gives up on a body that stalls after timeoutMs, with the same clear error', async () => {
      const url = `${server.base}/stall`;
      const error = await sourceError(loadOpenApiDocument(url, { timeoutMs: 200 }));
      expect(error.message).toMatch(
        new RegExp(`^cannot be fetched from ${literal(url)}: .*gave no whole answer within 200 ms$`),
      );
    });

    it('refuses a document announced larger than 32 MB without reading it', async () => {
      const url = `${server.base}/huge`;
      const error = await sourceError(loadOpenApiDocument(url, options));
      expect(error.message).toBe(`from ${url} is over ${32 * 1024 * 1024} bytes`);
    });

    it('reports a refused connection with its reason', async () => {
      const closed = await startServer(() => undefined);
      await closed.close();
      const url = `${closed.base}/openapi.json`;
      const error = await sourceError(loadOpenApiDocument(url, options));
      expect(error.message).toMatch(new RegExp(`^cannot be fetched from ${literal(url)}: .*ECONNREFUSED`));
    });
  });
});

/** `text` as a literal in a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
