import { BlockList, isIP } from 'node:net';

/**
 * What an IP address is, for deciding whether the host may connect to it:
 * - `public`: globally reachable unicast (IPv6: in 2000::/3);
 * - `loopback` (127.0.0.0/8, ::1), `unspecified` (0.0.0.0/8, ::: Linux connects it to the host itself);
 * - `private` (RFC 1918), `cgnat` (100.64.0.0/10, shared address space), `unique-local` (fc00::/7, and
 *   the deprecated site-local fec0::/10), `link-local` (169.254.0.0/16, fe80::/10);
 * - `metadata`: a cloud provider's instance metadata or host endpoint (169.254.169.254, fd00:ec2::254, …),
 *   which hands out the machine's credentials;
 * - `multicast`, `documentation` (TEST-NETs, 2001:db8::/32, 3fff::/20), `benchmark` (198.18.0.0/15,
 *   2001:2::/48), `reserved` (the rest of IANA's special-purpose ranges, and IPv6 outside 2000::/3).
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'cgnat'
  | 'unique-local'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'documentation'
  | 'benchmark'
  | 'reserved';

/**
 * How an IPv6 address carries an IPv4 one, whose class it then has: `ipv4-mapped` (::ffff:0:0/96),
 * `ipv4-translated` (::ffff:0:0:0/96), `ipv4-compatible` (::/96, deprecated), `nat64` (64:ff9b::/96),
 * `nat64-local` (64:ff9b:1::/48), `6to4` (2002::/16), `teredo` (2001::/32).
 */
export type EmbeddingForm =
  'ipv4-mapped' | 'ipv4-translated' | 'ipv4-compatible' | 'nat64' | 'nat64-local' | '6to4' | 'teredo';

/** An address as `classifyAddress` read it. */
export interface AddressClassification {
  readonly class: AddressClass;
  /** The address as Node writes it (IPv6 compressed and in lower case, without a zone). */
  readonly address: string;
  readonly family: 4 | 6;
  /** The IPv4 address an IPv6 one carries, and how (its class is the address's). */
  readonly embedded?: { readonly form: EmbeddingForm; readonly ipv4: string };
}

/** A range of IANA's special-purpose registries (or a cloud's metadata address) and its class. */
type Range = readonly [network: string, prefix: number, kind: Exclude<AddressClass, 'public'> | 'public'];

/**
 * The IPv4 ranges, in the order they are tried (the first that holds an address is its class;
 * the metadata addresses first, inside the ranges that hold them). Outside every one: `public`.
 */
const IPV4_RANGES: readonly Range[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean, …
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task credentials
  ['169.254.170.23', 32, 'metadata'], // AWS EKS Pod Identity
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['168.63.129.16', 32, 'metadata'], // Azure WireServer (a public address, answered by the host)
  ['192.0.0.192', 32, 'metadata'], // Oracle Cloud (legacy)
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['169.254.0.0', 16, 'link-local'],
  ['224.0.0.0', 4, 'multicast'],
  ['192.0.2.0', 24, 'documentation'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['198.18.0.0', 15, 'benchmark'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast (deprecated)
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255, broadcast
];

/** The IPv6 ranges (after the embedded IPv4 forms), likewise. Outside every one: `reserved`. */
const IPV6_RANGES: readonly Range[] = [
  ['fd00:ec2::254', 128, 'metadata'], // AWS instance metadata over IPv6
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique-local'],
  ['fec0::', 10, 'unique-local'], // site-local (deprecated)
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2001:2::', 48, 'benchmark'],
  ['100::', 64, 'reserved'], // discard-only
  ['2001:10::', 28, 'reserved'], // ORCHID (deprecated)
  ['2001:20::', 28, 'reserved'], // ORCHIDv2
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['2000::', 3, 'public'], // global unicast: the rest of it
];

/** The ranges of one family as Node's `BlockList`s, one per class, in the order they are tried. */
type Classifier = readonly (readonly [AddressClass, BlockList])[];

let compiled: { v4: Classifier; v6: Classifier } | undefined;

/** The tables as `BlockList`s, made with the first address classified (nothing at import). */
function classifiers(): { v4: Classifier; v6: Classifier } {
  const compile = (ranges: readonly Range[], family: 'ipv4' | 'ipv6'): Classifier => {
    const lists = new Map<AddressClass, BlockList>();
    for (const [network, prefix, kind] of ranges) {
      if (!lists.has(kind)) lists.set(kind, new BlockList());
      lists.get(kind)!.addSubnet(network, prefix, family);
    }
    return [...lists];
  };
  compiled ??= { v4: compile(IPV4_RANGES, 'ipv4'), v6: compile(IPV6_RANGES, 'ipv6') };
  return compiled;
}

/**
 * The class of an IP address, whatever its spelling: Node decides what is an address (`isIP`),
 * the URL parser writes an IPv6 one canonically, an IPv6 address that carries an IPv4 one (mapped,
 * translated, compatible, NAT64, 6to4, Teredo) has the class of the IPv4 address it carries, and
 * every other address is looked up in IANA's special-purpose ranges (Node's `BlockList`). A zone
 * (`fe80::1%eth0`) is dropped. Host names are not addresses: resolve them first, and classify
 * every address they resolve to. (Decimal, octal and hexadecimal IPv4 spellings in a URL's host —
 * `http://2130706433/`, `http://0x7f.1/` — are written as dotted quads by the URL parser, and
 * resolve to one.)
 *
 * @example
 * classifyAddress('::ffff:7f00:1') // { class: 'loopback', address: '::ffff:7f00:1', family: 6, embedded: { form: 'ipv4-mapped', ipv4: '127.0.0.1' } }
 * classifyAddress('169.254.169.254').class // 'metadata'
 * @returns `undefined` when `text` is not an IP address
 */
export function classifyAddress(text: string): AddressClassification | undefined {
  const zone = text.indexOf('%');
  const bare = (zone < 0 ? text : text.slice(0, zone)).replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 4) return { class: classOfIpv4(bare), address: bare, family };
  if (family !== 6) return undefined;
  let address: string;
  try {
    address = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    // Node takes it for an address, the URL parser does not: nothing to connect to with confidence.
    return { class: 'reserved', address: bare.toLowerCase(), family };
  }
  const bytes = ipv6Bytes(address);
  const embedded = embeddedIpv4(bytes);
  if (embedded)
    return { class: embedded.kind, address, family, embedded: { form: embedded.form, ipv4: embedded.ipv4 } };
  for (const [kind, list] of classifiers().v6) if (list.check(address, 'ipv6')) return { class: kind, address, family };
  return { class: 'reserved', address, family };
}

function classOfIpv4(address: string): AddressClass {
  for (const [kind, list] of classifiers().v4) if (list.check(address, 'ipv4')) return kind;
  return 'public';
}

/** The 16 bytes of an IPv6 address as the URL parser writes it (hexadecimal groups, at most one `::`). */
function ipv6Bytes(canonical: string): Uint8Array {
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const first = groups(head);
  const last = groups(tail);
  const all = [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

const zeros = (bytes: Uint8Array, from: number, to: number) => bytes.subarray(from, to).every((byte) => byte === 0);
const dotted = (bytes: ArrayLike<number>) => Array.from(bytes).join('.');

/** The IPv4 address an IPv6 one carries, how, and the class that makes the IPv6 address. */
function embeddedIpv4(bytes: Uint8Array): { form: EmbeddingForm; ipv4: string; kind: AddressClass } | undefined {
  const carried = (form: EmbeddingForm, ipv4: string, whenPublic?: AddressClass) => {
    const kind = classOfIpv4(ipv4);
    return { form, ipv4, kind: kind === 'public' && whenPublic ? whenPublic : kind };
  };
  const last = dotted(bytes.subarray(12));
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return carried('ipv4-mapped', last);
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12))
    return carried('ipv4-translated', last);
  // ::/96 but :: and ::1 (which are themselves): deprecated, nothing public is reached so.
  if (zeros(bytes, 0, 12) && !zeros(bytes, 12, 15)) return carried('ipv4-compatible', last, 'reserved');
  const prefix = (...groups: number[]) =>
    groups.every((group, index) => bytes[index * 2] === group >> 8 && bytes[index * 2 + 1] === (group & 0xff));
  if (prefix(0x64, 0xff9b) && zeros(bytes, 4, 12)) return carried('nat64', last);
  // A local-use prefix (RFC 8215): a translator of the host's own network, whatever it carries.
  if (prefix(0x64, 0xff9b, 0x1)) return carried('nat64-local', last, 'private');
  if (prefix(0x2002)) return carried('6to4', dotted(bytes.subarray(2, 6)));
  if (prefix(0x2001, 0x0)) {
    // Teredo: the server's address, and the client's (its bits inverted); the less public counts.
    const client = carried('teredo', dotted(bytes.subarray(12).map((byte) => byte ^ 0xff)));
    return client.kind === 'public' ? carried('teredo', dotted(bytes.subarray(4, 8))) : client;
  }
  return undefined;
}
