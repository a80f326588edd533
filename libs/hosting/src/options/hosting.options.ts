import { Inject } from '@nestjs/common';
import { optionChecks, URL_PATH, type OptionReport } from '#libs/core';

/** What the transports and the host's life cycle need of the module's options. */
export interface HostingOptions {
  /** Path of the Streamable HTTP endpoint. */
  path: string;
  http: boolean;
  stdio: boolean;
  routeThroughExpress: boolean;
  /** Largest request body (bytes). */
  bodyLimit: number;
  /** `undefined`: CORS off. */
  cors: { origins: ReadonlySet<string>; maxAgeSec: number } | undefined;
  shutdownTimeoutMs: number;
}

/** Token of the resolved `HostingOptions`. */
export const MCP_HOSTING_OPTIONS = Symbol('MCP:HOSTING_OPTIONS');

/** Injects the `HostingOptions`. */
export const InjectHostingOptions = (): ParameterDecorator => Inject(MCP_HOSTING_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const HOSTING_OPTION_KEYS = [
  'path',
  'http',
  'stdio',
  'routeThroughExpress',
  'bodyLimit',
  'cors',
  'shutdownTimeoutMs',
] as const;

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/**
 * Validates the transports' options and merges their defaults.
 * @param report called once per problem, with how to fix it
 */
export function resolveHostingOptions(o: Record<string, unknown>, report: OptionReport): HostingOptions {
  const check = optionChecks(o, report);
  const path = o.path ?? '/mcp';
  if (typeof path !== 'string' || !URL_PATH.test(path) || (path.length > 1 && path.endsWith('/'))) {
    report(
      'path',
      `"${String(path)}" is not an absolute URL path`,
      "use a path like '/mcp' (leading slash, no trailing slash, no query)",
    );
  }
  const bodyLimit = parseSize(o.bodyLimit ?? '1mb');
  if (bodyLimit === undefined)
    report(
      'bodyLimit',
      `${JSON.stringify(o.bodyLimit)} is not a size`,
      "give bytes (1048576) or a string like '512kb' or '4mb'",
    );
  const cors = o.cors as { origins?: unknown; maxAgeSec?: number } | undefined;
  if (
    cors !== undefined &&
    (!Array.isArray(cors?.origins) ||
      cors.origins.some((origin) => typeof origin !== 'string' || !/^https?:\/\/[^/]+$/.test(origin)))
  ) {
    report(
      'cors',
      'needs "origins": a list of scheme://host[:port]',
      "e.g. cors: { origins: ['https://app.example.com'] }",
    );
  }
  return {
    path: typeof path === 'string' ? path : '/mcp',
    http: check.flag('http', true),
    stdio: check.flag('stdio', false),
    routeThroughExpress: check.flag('routeThroughExpress', false),
    bodyLimit: bodyLimit ?? 1024 ** 2,
    cors:
      cors && Array.isArray(cors.origins)
        ? {
            origins: new Set((cors.origins as string[]).map((origin) => origin.toLowerCase())),
            maxAgeSec: cors.maxAgeSec ?? 600,
          }
        : undefined,
    shutdownTimeoutMs: check.integer('shutdownTimeoutMs', 10_000, 0),
  };
}

function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = SIZE.exec(value.trim());
  return match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]) : undefined;
}
