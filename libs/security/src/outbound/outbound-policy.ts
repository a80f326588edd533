import { lookup, type LookupAddress } from 'node:dns';
import { networkInterfaces } from 'node:os';
import { Logger } from '@nestjs/common';
import { classifyAddress, type AddressClass, type AddressClassification } from './address-class';
import { OutboundError } from './outbound.error';
import { OutboundMessages } from './outbound.messages';

/** Resolves a host name to every address it has (the default: the system's resolver, `dns.lookup`). */
export type OutboundResolver = (host: string) => Promise<readonly LookupAddress[]>;

/** What a policy lets the host reach. */
export interface OutboundPolicyOptions {
  /** What the policy governs, in messages: `'a run-time upstream or API'`. */
  readonly reach: string;
  /** The option that widens it, named in a refusal's fix (`'virtualServers.allowHosts'`). */
  readonly allowOption?: string;
  /** Classes reachable at any host, besides `public`. */
  readonly classes?: readonly AddressClass[];
  /** Host names whose addresses may also be of `hostClasses`. */
  readonly hosts?: readonly string[];
  readonly hostClasses?: readonly AddressClass[];
  /** Addresses reachable whatever their class: the only way to a `metadata` address. */
  readonly addresses?: readonly string[];
  /** This host's own HTTP port: its own addresses on it are never reached (`undefined`: it does not listen). */
  readonly ownPort?: () => number | undefined;
  /** @default the system's resolver (`dns.lookup`, every address) */
  readonly resolve?: OutboundResolver;
  /** Told of every refusal (after it is logged): to audit it. */
  readonly onRefused?: (refusal: OutboundRefusal) => void;
}

/** A connection the policy refuses: to which host, port and address, of which class, and why. */
export interface OutboundRefusal {
  readonly reach: string;
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly class: AddressClass;
  /** The address's class is not reachable, or it is this host's own address and port. */
  readonly reason: 'class' | 'own-port';
  readonly problem: string;
  readonly fix: string;
}

const logger = new Logger('McpOutbound');

/** The system's resolver, every address of a name. */
const systemResolver: OutboundResolver = (host) =>
  new Promise((resolve, reject) =>
    lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * Where the host may connect for one kind of outbound request: the classes of address it may
 * reach (`public` always), the host names that may reach more, the addresses reachable whatever
 * their class, and this host's own port on its own addresses never. It is applied to every
 * address a name resolves to, when a connection is made (`guardedLookup`, `guardedConnector`),
 * and may be asked earlier for a clear error (`admit`). The policies of the host's kinds of
 * request are made in one place, `OutboundPolicies`.
 *
 * @example
 * ```ts
 * const policy = new OutboundPolicy({ reach: 'a client metadata document' });
 * policy.refusal('intranet', ['10.0.0.7'], 443)?.problem; // '"intranet" resolves to 10.0.0.7, a private (RFC 1918) address, …'
 * ```
 */
export class OutboundPolicy {
  readonly reach: string;
  private readonly classes: ReadonlySet<AddressClass>;
  private readonly hosts: ReadonlySet<string>;
  private readonly hostClasses: ReadonlySet<AddressClass>;
  private readonly addresses: ReadonlySet<string>;
  private readonly resolver: OutboundResolver;

  constructor(private readonly options: OutboundPolicyOptions) {
    this.reach = options.reach;
    this.classes = new Set(options.classes ?? []);
    this.hosts = new Set((options.hosts ?? []).map(hostKey));
    this.hostClasses = new Set(options.hostClasses ?? []);
    this.addresses = new Set((options.addresses ?? []).map(hostKey));
    this.resolver = options.resolve ?? systemResolver;
  }

  /**
   * Why connecting to `addresses` (what `host` is, or resolved to) on `port` is refused; the first
   * address refused decides. Pure: nothing is logged or told.
   * @returns `undefined` when every address may be reached
   */
  refusal(host: string, addresses: readonly string[], port: number): OutboundRefusal | undefined {
    const name = hostKey(host);
    const own = this.options.ownPort?.();
    for (const given of addresses) {
      const address = classifyAddress(given) ?? { class: 'reserved' as const, address: given, family: 4 as const };
      const refused = (reason: OutboundRefusal['reason'], problem: string, fix: string): OutboundRefusal => ({
        reach: this.reach,
        host: name,
        port,
        address: address.address,
        class: address.class,
        reason,
        problem,
        fix,
      });
      if (own !== undefined && port === own && isOwnAddress(address))
        return refused('own-port', OutboundMessages.refusedOwnPort(name, port), OutboundMessages.refusedOwnPortFix());
      if (!this.reaches(name, address))
        return refused(
          'class',
          OutboundMessages.refusedClass(name, address.address, address.class, this.reach),
          OutboundMessages.refusedClassFix(name, address.address, address.class, this.options.allowOption),
        );
    }
    return undefined;
  }

  /**
   * Every address of `host` (an address literal is its own).
   * @throws OutboundError (`unreachable`) when it cannot be resolved
   */
  async resolve(host: string): Promise<readonly LookupAddress[]> {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    const literal = classifyAddress(bare);
    if (literal) return [{ address: literal.address, family: literal.family }];
    try {
      return await this.resolver(bare);
    } catch (error) {
      throw new OutboundError(
        'unreachable',
        bare,
        OutboundMessages.unresolved(bare, (error as { code?: string }).code),
        {
          cause: error,
        },
      );
    }
  }

  /**
   * Resolves `url`'s host now and checks every address: the early, clear error of a URL given to
   * the host (the check that counts is made again at each connection). Pure, as `refusal` is.
   * @returns `undefined` when every address may be reached
   * @throws OutboundError (`unreachable`) when the host does not resolve
   */
  async refusalOf(url: URL): Promise<OutboundRefusal | undefined> {
    const addresses = await this.resolve(url.hostname);
    return this.refusal(
      url.hostname,
      addresses.map(({ address }) => address),
      portOf(url),
    );
  }

  /**
   * `refusalOf`, a refusal reported as `refuse` reports it.
   * @throws OutboundError `refused`, or `unreachable` when the host does not resolve
   */
  async admit(url: URL): Promise<void> {
    const refusal = await this.refusalOf(url);
    if (refusal) throw this.refuse(refusal);
  }

  /** Logs a refusal, tells `onRefused` of it, and returns the error to throw. */
  refuse(refusal: OutboundRefusal): OutboundError {
    logger.warn(`Refused a connection for ${refusal.reach} to ${refusal.host}:${refusal.port}: ${refusal.problem}`);
    this.options.onRefused?.(refusal);
    return new OutboundError('refused', refusal.host, refusal.problem, { fix: refusal.fix });
  }

  private reaches(host: string, address: AddressClassification): boolean {
    if (address.class === 'public') return true;
    if (this.addresses.has(address.address) || (address.embedded && this.addresses.has(address.embedded.ipv4)))
      return true;
    if (address.class === 'metadata') return false;
    return this.classes.has(address.class) || (this.hosts.has(host) && this.hostClasses.has(address.class));
  }
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** A host as policies compare them: lower case, no brackets, no trailing dot; an address as Node writes it. */
function hostKey(host: string): string {
  const bare = host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  return classifyAddress(bare)?.address ?? bare;
}

/** An address of this machine: loopback, unspecified, or one of its interfaces'. */
function isOwnAddress(address: AddressClassification): boolean {
  if (address.class === 'loopback' || address.class === 'unspecified') return true;
  const plain = address.embedded?.form === 'ipv4-mapped' ? address.embedded.ipv4 : address.address;
  return Object.values(networkInterfaces()).some((list) =>
    list?.some((entry) => classifyAddress(entry.address)?.address === plain),
  );
}
