import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MissingDependencyError, optionalDependency } from '#libs/core';

const yaml = optionalDependency(
  'yaml',
  'OpenAPI documents in YAML (rest.apis[].document); or give the document as JSON',
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('yaml') => require('yaml'),
);

/** The largest document read from a file or a URL (the biggest public APIs' documents are a few MB). */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;

/** An OpenAPI document as read, and the URL it was read from (relative server URLs resolve against it). */
export interface LoadedOpenApiDocument {
  readonly document: Record<string, unknown>;
  /** The http(s) URL the document came from; `undefined` for a file or an object. */
  readonly url: string | undefined;
}

/** Why a document could not be read: the problem, and what to do about it. */
export class OpenApiSourceError extends Error {
  constructor(
    message: string,
    readonly fix: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OpenApiSourceError';
  }
}

/**
 * Reads an OpenAPI document from a file path, an http(s) URL or an object already parsed.
 * JSON is told from YAML by its first character (`{`); YAML needs the `yaml` package.
 *
 * @example
 * ```ts
 * const { document, url } = await loadOpenApiDocument('https://api.example.com/openapi.json', { timeoutMs: 10_000 });
 * ```
 * @throws OpenApiSourceError when the document cannot be read or parsed
 */
export async function loadOpenApiDocument(
  source: string | Record<string, unknown>,
  options: { timeoutMs: number },
): Promise<LoadedOpenApiDocument> {
  if (typeof source !== 'string') return { document: source, url: undefined };
  if (/^https?:\/\//i.test(source)) {
    const text = await download(source, options.timeoutMs);
    return { document: parseDocument(text, source), url: source };
  }
  const path = resolve(source);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OpenApiSourceError(
      `cannot be read from ${path} (${code ?? (error as Error).message})`,
      code === 'ENOENT'
        ? 'check the path: a relative one is taken from the working directory, ' + process.cwd()
        : 'make the file readable by the host',
      { cause: error },
    );
  }
  return { document: parseDocument(text, path), url: undefined };
}

async function download(url: string, timeoutMs: number): Promise<string> {
  const unreachable = (error: unknown) => {
    const reason = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    return new OpenApiSourceError(
      `cannot be fetched from ${url}: ${reason}`,
      'check the URL and that the host can reach it, or ship the document as a file',
      { cause: error },
    );
  };
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' }, signal });
  } catch (error) {
    throw unreachable(error);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new OpenApiSourceError(
      `cannot be fetched from ${url}: it answered ${response.status}`,
      'check the URL; a document behind authentication can be fetched by the app and given as an object',
    );
  }
  const tooLarge = () =>
    new OpenApiSourceError(`from ${url} is over ${MAX_DOCUMENT_BYTES} bytes`, 'select a smaller document');
  if (Number(response.headers.get('content-length') ?? 0) > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  // Read as it arrives, so that a body that stalls (the timeout) or goes past the limit stops
  // the read with a clear error rather than after it was all in memory.
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      // Leaving the loop by a throw cancels the stream.
      if (size > MAX_DOCUMENT_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    throw error instanceof OpenApiSourceError ? error : unreachable(error);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseDocument(source: string, from: string): Record<string, unknown> {
  // Editors on Windows save a byte order mark, which JSON.parse refuses.
  const text = source.replace(/^\uFEFF/, '');
  const json = text.trimStart().startsWith('{');
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(text) : yaml().parse(text);
  } catch (error) {
    if (error instanceof MissingDependencyError) throw error;
    throw new OpenApiSourceError(
      `from ${from} is not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`,
      'fix the document, or point to another one',
      { cause: error },
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new OpenApiSourceError(
      `from ${from} is not an OpenAPI document (not an object)`,
      'point to an OpenAPI 3.x document',
    );
  return parsed as Record<string, unknown>;
}
