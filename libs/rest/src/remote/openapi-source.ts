import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MissingDependencyError, optionalDependency } from '#libs/core';
import { OutboundError, outboundFetch, OutboundPolicies, type OutboundPolicy } from '#libs/security';

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

/** How a document at a URL is fetched. */
export interface OpenApiSourceOptions {
  /** The longest the whole download may take. */
  readonly timeoutMs: number;
  /** The option that sets it, named when it passes (`rest.apis[0].timeoutMs`). */
  readonly timeoutOption?: string;
  /** Where the download may connect. @default `OutboundPolicies.configured([source])` */
  readonly reach?: OutboundPolicy;
}

/**
 * Reads an OpenAPI document from a file path, an http(s) URL or an object already parsed.
 * JSON is told from YAML by its first character (`{`); YAML needs the `yaml` package. A URL is
 * fetched through `reach` (every address checked as it connects), no redirect followed, the whole
 * document within `timeoutMs` and at most 32 MB.
 *
 * @example
 * ```ts
 * const { document, url } = await loadOpenApiDocument('https://api.example.com/openapi.json', { timeoutMs: 10_000 });
 * ```
 * @throws OpenApiSourceError when the document cannot be read or parsed
 */
export async function loadOpenApiDocument(
  source: string | Record<string, unknown>,
  options: OpenApiSourceOptions,
): Promise<LoadedOpenApiDocument> {
  if (typeof source !== 'string') return { document: source, url: undefined };
  if (/^https?:\/\//i.test(source)) {
    const text = await download(source, options);
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

async function download(url: string, options: OpenApiSourceOptions): Promise<string> {
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } },
      {
        purpose: 'the OpenAPI document',
        policy: options.reach ?? OutboundPolicies.configured([url], 'an OpenAPI document'),
        timeoutMs: options.timeoutMs,
        ...(options.timeoutOption && { timeoutOption: options.timeoutOption }),
        maxBytes: MAX_DOCUMENT_BYTES,
      },
    );
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.failure === 'too_large')
      throw new OpenApiSourceError(`from ${url} is over ${MAX_DOCUMENT_BYTES} bytes`, 'select a smaller document');
    throw new OpenApiSourceError(
      `cannot be fetched from ${url}: ${error.message}`,
      error.fix ?? 'check the URL and that the host can reach it, or ship the document as a file',
      { cause: error },
    );
  }
  if (!response.ok)
    throw new OpenApiSourceError(
      `cannot be fetched from ${url}: it answered ${response.status}`,
      response.status >= 300 && response.status < 400
        ? 'give the URL it redirects to: redirects are not followed'
        : 'check the URL; a document behind authentication can be fetched by the app and given as an object',
    );
  return response.text();
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
