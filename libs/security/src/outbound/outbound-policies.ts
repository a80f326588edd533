import { classifyAddress, type AddressClass } from './address-class';
import { OutboundPolicy, type OutboundRefusal, type OutboundResolver } from './outbound-policy';

/** Every class but `metadata`: what the operator's own configuration may reach. */
const ALL_BUT_METADATA: readonly AddressClass[] = [
  'loopback',
  'unspecified',
  'private',
  'cgnat',
  'unique-local',
  'link-local',
  'multicast',
  'documentation',
  'benchmark',
  'reserved',
];

/** The networks of the host's own site: what `allowPrivateNetworks` opens. */
const PRIVATE_NETWORKS: readonly AddressClass[] = ['loopback', 'private', 'cgnat', 'unique-local', 'link-local'];

/** A DNS name (letters, digits, `-` and `_` in dot-separated labels), a trailing dot allowed. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/**
 * Whether an `allowHosts` entry is a host name or an IP address (no scheme, port, path or range):
 * what the options that take one check.
 * @example
 * isHostOrAddress('wiki.internal') // true
 * isHostOrAddress('http://wiki.internal:8080') // false
 */
export function isHostOrAddress(entry: string): boolean {
  return classifyAddress(entry) !== undefined || HOST_NAME.test(entry);
}

/** `allowHosts` as given: host names, and addresses (which are allowed whatever their class). */
function split(allowHosts: Iterable<string>): { hosts: string[]; addresses: string[] } {
  const hosts: string[] = [];
  const addresses: string[] = [];
  for (const entry of allowHosts) (classifyAddress(entry) ? addresses : hosts).push(entry);
  return { hosts, addresses };
}

/** The address a URL names literally, if it names one. */
function literalOf(url: string | URL | undefined): string[] {
  if (url === undefined || !URL.canParse(String(url))) return [];
  const address = classifyAddress(new URL(url).hostname);
  return address ? [address.address] : [];
}

/**
 * The outbound policy of each kind of request the host makes, in one place
 * (docs/security.md, "Outbound fetches"). `public` addresses are always reachable; a `metadata`
 * address only when named by address. Each is applied to every address, at every connection.
 *
 * | kind | who gives the URL | reaches besides public |
 * |---|---|---|
 * | `configured` | the operator, in the host's options: gateway upstreams, `rest.apis`, the IdP, webhooks, audit sinks, JWKS | every class but metadata; a metadata address only when the URL names it |
 * | `discovered` | a document of a configured party: the IdP's discovery document, an OpenAPI document's server | every class but metadata |
 * | `clientMetadata` | anyone: a client's `client_id` URL | nothing, but at `clientMetadataDocuments.allowHosts` (names: every class but metadata; addresses: themselves) |
 * | `runTime` | an administrator, through the admin API: upstreams and REST APIs | nothing, but at `virtualServers.allowHosts` (likewise) or, with `allowPrivateNetworks`, loopback, private, CGNAT, unique-local and link-local; never this host's own port on its own address |
 */
export const OutboundPolicies = {
  /**
   * URLs of the host's own options. The operator is trusted to reach its own networks, but not
   * the cloud metadata endpoints, which hand out the machine's credentials, unless a URL names
   * such an address itself (a redirect or a DNS answer never opens one).
   */
  configured(urls: readonly (string | URL | undefined)[], reach = 'a configured URL'): OutboundPolicy {
    return new OutboundPolicy({ reach, classes: ALL_BUT_METADATA, addresses: urls.flatMap(literalOf) });
  },

  /** URLs a configured party's document names: as `configured`, without the metadata addresses at all. */
  discovered(reach = 'a URL a configured document names'): OutboundPolicy {
    return new OutboundPolicy({ reach, classes: ALL_BUT_METADATA });
  },

  /** Client ID Metadata Documents: a stranger's URL, fetched before anyone signed in. */
  clientMetadata(allowHosts: Iterable<string>, resolve?: OutboundResolver): OutboundPolicy {
    return new OutboundPolicy({
      reach: 'a client metadata document',
      allowOption: 'authorizationServer.clientMetadataDocuments.allowHosts',
      ...split(allowHosts),
      hostClasses: ALL_BUT_METADATA,
      ...(resolve && { resolve }),
    });
  },

  /** Upstreams and REST APIs an administrator adds while the host runs (`virtualServers`). */
  runTime(options: {
    allowHosts: Iterable<string>;
    allowPrivateNetworks: boolean;
    ownPort: () => number | undefined;
    onRefused?: (refusal: OutboundRefusal) => void;
    resolve?: OutboundResolver;
  }): OutboundPolicy {
    return new OutboundPolicy({
      reach: 'a run-time upstream or API',
      allowOption: 'virtualServers.allowHosts',
      classes: options.allowPrivateNetworks ? PRIVATE_NETWORKS : [],
      ...split(options.allowHosts),
      hostClasses: ALL_BUT_METADATA,
      ownPort: options.ownPort,
      ...(options.onRefused && { onRefused: options.onRefused }),
      ...(options.resolve && { resolve: options.resolve }),
    });
  },
};
