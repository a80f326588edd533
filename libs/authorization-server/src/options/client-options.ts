import { isHostOrAddress } from '#libs/security';
import { optionChecks, type OptionReport } from '#libs/core';
import { redirectUriProblem } from '../client-rules/redirect-uris';
import type { AddressRateLimit } from '../state/address-rate';
import { TrustedHosts } from '../client-rules/trusted-hosts';

/**
 * The limits of RFC 7591 registration (`dynamicRegistration`): anyone may register, so how many
 * registrations one address makes, how many are kept at all, and how long an unused one lives are
 * bounded, on every replica alike (counted in the authorization server's store).
 *
 * @example
 * ```ts
 * dynamicRegistration: { maxClients: 2_000, perAddress: { limit: 10, windowSec: 3_600 }, unusedTtlSec: 3_600 }
 * ```
 */
export interface McpDynamicRegistration {
  /** Registered clients kept at once; past it a registration is refused (503) until some expire. @default 5000 */
  maxClients?: number;
  /** Registrations one client address (an IPv6 one by its /64) may make in each window; `false` counts none. @default { limit: 20, windowSec: 3600 } */
  perAddress?: false | { limit: number; windowSec: number };
  /** A registration no token was issued to is forgotten this long after it was made, in seconds. @default 86400 (1 day) */
  unusedTtlSec?: number;
  /**
   * A registration in use is forgotten this long after the last token issued to it, in seconds (at
   * least `refreshTokenTtlSec`, so a client's refresh token never outlives its registration).
   * @default the larger of 2592000 (30 days) and `refreshTokenTtlSec`
   */
  idleTtlSec?: number;
}

/** The `clientMetadataDocuments` option, as given. */
export interface McpClientMetadataDocuments {
  /**
   * The hosts whose documents are accepted (a CIMD trust policy): `clients.corp.example`, or
   * `*.corp.example` for every host under it. A client ID URL on any other host is refused before
   * anything is fetched. Unset: any host.
   */
  trustedHosts?: string[];
  /** Hosts that may resolve to private addresses (an intranet's own clients) and be fetched over http; not a trust list. */
  allowHosts?: string[];
  /** Extra trusted certificates (PEM), for those hosts. */
  ca?: string;
  /** How long a fetched document is kept, in seconds (at most the document's `max-age`). @default 300 */
  cacheTtlSec?: number;
}

/** `dynamicRegistration`, resolved: `false`, or its limits. */
export type DynamicRegistrationLimits =
  | false
  | {
      maxClients: number;
      perAddress: false | { limit: number; windowSec: number };
      unusedTtlSec: number;
      idleTtlSec: number;
    };

/** `clientMetadataDocuments`, resolved. */
export type ClientMetadataDocumentsOptions =
  | false
  | {
      trustedHosts: TrustedHosts | undefined;
      allowHosts: ReadonlySet<string>;
      ca: string | undefined;
      cacheTtlSec: number;
    };

const at = (field: string) => `authorizationServer${field}`;

/** Validates `dynamicRegistration` (`true`, `false` or its limits) and merges its defaults. */
export function resolveDynamicRegistration(
  given: unknown,
  refreshTokenTtlSec: number,
  report: OptionReport,
): DynamicRegistrationLimits {
  if (given === false) return false;
  if (given !== undefined && given !== true && (typeof given !== 'object' || given === null)) {
    report(
      at('.dynamicRegistration'),
      'must be true, false or its limits',
      'e.g. dynamicRegistration: { maxClients: 5000 }',
    );
    return false;
  }
  const limits = (typeof given === 'object' ? given : {}) as Record<string, unknown>;
  const checks = optionChecks(limits, report, 'authorizationServer.dynamicRegistration.');
  checks.known(new Set(['maxClients', 'perAddress', 'unusedTtlSec', 'idleTtlSec']));
  const perAddress = resolveAddressRate(limits.perAddress, '.dynamicRegistration.perAddress', 20, 3_600, report);
  const idleTtlSec = checks.integer('idleTtlSec', Math.max(2_592_000, refreshTokenTtlSec), 60);
  if (idleTtlSec < refreshTokenTtlSec)
    report(
      at('.dynamicRegistration.idleTtlSec'),
      `is shorter than refreshTokenTtlSec (${refreshTokenTtlSec}): a client's registration would expire before its refresh token`,
      `set idleTtlSec to at least ${refreshTokenTtlSec}, or leave it out`,
    );
  return {
    maxClients: checks.integer('maxClients', 5_000, 1),
    perAddress,
    // Long enough for a person to finish signing in (a pending sign-in lives 10 minutes).
    unusedTtlSec: checks.integer('unusedTtlSec', 86_400, 600),
    idleTtlSec,
  };
}

/**
 * Validates a rate per client address (`{ limit, windowSec }`, either left to its default, or
 * `false` for none) at `field` of `authorizationServer`.
 */
export function resolveAddressRate(
  given: unknown,
  field: string,
  limit: number,
  windowSec: number,
  report: OptionReport,
): false | AddressRateLimit {
  if (given === false) return false;
  if (given !== undefined && (typeof given !== 'object' || given === null)) {
    report(at(field), 'must be { limit, windowSec } or false', `e.g. { limit: ${limit}, windowSec: ${windowSec} }`);
    return { limit, windowSec };
  }
  const checks = optionChecks((given ?? {}) as Record<string, unknown>, report, `authorizationServer${field}.`);
  checks.known(new Set(['limit', 'windowSec']));
  return { limit: checks.integer('limit', limit, 1), windowSec: checks.integer('windowSec', windowSec, 1, 86_400) };
}

/** Validates `clientMetadataDocuments` (`false` or its settings) and merges its defaults. */
export function resolveClientMetadataDocuments(given: unknown, report: OptionReport): ClientMetadataDocumentsOptions {
  if (given === false) return false;
  const documents = (given ?? {}) as Record<string, unknown>;
  const checks = optionChecks(documents, report, 'authorizationServer.clientMetadataDocuments.');
  checks.known(new Set(['trustedHosts', 'allowHosts', 'ca', 'cacheTtlSec']));
  const hostList = (field: 'trustedHosts' | 'allowHosts', example: string): string[] | undefined => {
    const hosts = documents[field];
    if (hosts === undefined) return undefined;
    if (!Array.isArray(hosts)) {
      report(at(`.clientMetadataDocuments.${field}`), 'must be a list of host names', `e.g. ${example}`);
      return [];
    }
    hosts.forEach((host, index) => {
      const problem = field === 'allowHosts' ? allowHostProblem(host) : TrustedHosts.problem(host);
      if (problem)
        report(
          at(`.clientMetadataDocuments.${field}[${index}]`),
          `${JSON.stringify(host)} ${problem}`,
          `e.g. ${example}`,
        );
    });
    return hosts as string[];
  };
  const trustedHosts = hostList('trustedHosts', "['clients.corp.example', '*.apps.corp.example']");
  if (trustedHosts?.length === 0 && Array.isArray(documents.trustedHosts))
    report(
      at('.clientMetadataDocuments.trustedHosts'),
      'is empty: it would trust no host',
      'list the hosts to trust, or set clientMetadataDocuments: false to accept no document',
    );
  const allowHosts = hostList('allowHosts', "['clients.corp.example']") ?? [];
  if (documents.ca !== undefined && typeof documents.ca !== 'string')
    report(
      at('.clientMetadataDocuments.ca'),
      'must be PEM text',
      'read the certificate file, e.g. readFileSync(path, "utf8")',
    );
  return {
    trustedHosts: trustedHosts ? new TrustedHosts(trustedHosts) : undefined,
    allowHosts: new Set(allowHosts.map((host) => String(host).toLowerCase())),
    ca: typeof documents.ca === 'string' ? documents.ca : undefined,
    cacheTtlSec: checks.integer('cacheTtlSec', 300, 0, 86_400),
  };
}

/** Reports each redirect URI of a pre-registered client that no client may use (a fragment, http off loopback, …). */
export function checkPreRegisteredRedirects(index: number, uris: unknown, report: OptionReport): void {
  if (uris === undefined) return;
  if (!Array.isArray(uris)) {
    report(at(`.clients[${index}].redirectUris`), 'must be a list of URLs', "e.g. ['http://127.0.0.1:33418/callback']");
    return;
  }
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) report(at(`.clients[${index}].redirectUris[${i}]`), problem, "e.g. 'http://127.0.0.1:33418/callback'");
  });
}

/** What is wrong with an `allowHosts` entry: one host name, or an address of any class (how a metadata address is allowed). */
function allowHostProblem(host: unknown): string | undefined {
  if (typeof host === 'string' && /^\s*(\*\.|\.)/.test(host)) return 'must name one host (no wildcard here)';
  if (typeof host !== 'string' || !isHostOrAddress(host))
    return 'is not a host name or an IP address (no scheme, port or path)';
  return undefined;
}
