import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The Swagger Petstore 3.0 document shipped as a fixture (test/fixtures/openapi/README.md). */
export const PETSTORE_DOCUMENT_FILE = join(__dirname, '../fixtures/openapi/petstore-3.0.yaml');

/** The bearer token the stub accepts, as the Petstore's `petstore_auth` would issue one. */
export const PETSTORE_TOKEN = 'stub-token-7f3a';

/** A request the stub received, as it arrived. */
export interface StubRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Pet {
  id: number;
  name: string;
  photoUrls: string[];
  status?: string;
  category?: { id?: number; name?: string };
  tags?: { id?: number; name?: string }[];
}

/** A running stub of the Petstore API below `/api/v3`, as the document's server says. */
export interface PetstoreStub {
  /** `http://127.0.0.1:<port>/api/v3` */
  readonly baseUrl: string;
  /** Every request so far, oldest first. */
  readonly requests: StubRequest[];
  /** The requests whose client went away before the answer was sent (cancelled, timed out). */
  readonly abandoned: StubRequest[];
  /** Answers every request after `ms` (0: at once), to test timeouts and cancellation. */
  delay(ms: number): void;
  close(): Promise<void>;
}

const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

/**
 * A stub of four Petstore operations — `getPetById`, `findPetsByStatus`, `addPet`, `deletePet`
 * — answering as the real Petstore does (the document's schemas and status codes), plus the
 * document itself at `/api/v3/openapi.yaml`, its server relative (`/api/v3`) as the live one
 * serves it. Every `/pet` call needs `Authorization: Bearer
 * PETSTORE_TOKEN`; `deletePet` also needs the `api_key` header the document declares.
 */
export async function startPetstoreStub(): Promise<PetstoreStub> {
  const pets = new Map<number, Pet>([
    [1, { id: 1, name: 'Rex', photoUrls: ['https://example.com/rex.jpg'], status: 'available' }],
    [2, { id: 2, name: 'Tom', photoUrls: [], status: 'sold' }],
    [3, { id: 3, name: 'Bella', photoUrls: [], status: 'available', category: { id: 1, name: 'Dogs' } }],
  ]);
  const requests: StubRequest[] = [];
  const abandoned: StubRequest[] = [];
  // The live Petstore serves its document with a server relative to itself; so does the stub.
  const documentText = readFileSync(PETSTORE_DOCUMENT_FILE, 'utf8').replace(
    /^servers:\n {2}- url: \S+$/m,
    'servers:\n  - url: /api/v3',
  );
  if (!documentText.includes('- url: /api/v3')) throw new Error('the Petstore fixture no longer has one server');
  let delayMs = 0;

  const answer = (method: string, url: URL, headers: IncomingHttpHeaders, body: string) => {
    const path = url.pathname.replace(/^\/api\/v3/, '');
    if (method === 'GET' && path === '/openapi.yaml')
      return { status: 200, body: documentText, type: 'application/yaml' };
    if (headers.authorization !== `Bearer ${PETSTORE_TOKEN}`)
      return json(401, { code: 401, message: 'Missing or invalid token' });
    if (method === 'GET' && path === '/pet/findByStatus') {
      const status = url.searchParams.get('status') ?? 'available';
      if (!['available', 'pending', 'sold'].includes(status))
        return json(400, { code: 400, message: 'Invalid status value' });
      return json(
        200,
        [...pets.values()].filter((pet) => pet.status === status),
      );
    }
    if (method === 'POST' && path === '/pet') {
      const pet = JSON.parse(body) as Pet;
      const errors = [
        ...(pet.name.trim() === '' ? [{ pointer: '#/name', detail: 'must not be blank' }] : []),
        ...(pet.photoUrls.some((photo) => !/^https:\/\//.test(photo))
          ? [{ pointer: '#/photoUrls', detail: 'every photo must be an https URL' }]
          : []),
      ];
      if (errors.length) return json(422, { title: 'Invalid pet', status: 422, errors });
      const id = pet.id ?? Math.max(...pets.keys()) + 1;
      pets.set(id, { ...pet, id });
      return json(200, pets.get(id));
    }
    const byId = /^\/pet\/([^/]+)$/.exec(path);
    if (byId) {
      const id = Number(byId[1]);
      if (!Number.isInteger(id)) return json(400, { code: 400, message: 'Invalid ID supplied' });
      if (method === 'GET')
        return pets.has(id) ? json(200, pets.get(id)) : json(404, { code: 404, message: 'Pet not found' });
      if (method === 'DELETE') {
        if (headers.api_key !== 'special-key') return json(400, { code: 400, message: 'Invalid pet value' });
        return pets.delete(id)
          ? json(200, { code: 200, message: `Pet ${id} deleted` })
          : json(404, { code: 404, message: 'Pet not found' });
      }
    }
    return json(404, { code: 404, message: `No operation ${method} ${path}` });
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received = { method: request.method!, url: request.url!, headers: request.headers, body };
      requests.push(received);
      response.on('close', () => {
        if (!response.writableFinished) abandoned.push(received);
      });
      const url = new URL(request.url!, 'http://stub');
      const reply = answer(request.method!, url, request.headers, body);
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(reply.status, { 'content-type': 'type' in reply ? reply.type : 'application/json' });
        response.end(reply.body);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v3`,
    requests,
    abandoned,
    delay: (ms) => void (delayMs = ms),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
