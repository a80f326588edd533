/**
 * A list of IP addresses and CIDR ranges (IPv4 and IPv6; an IPv4-mapped IPv6 address such as
 * `::ffff:10.0.0.1` or `::ffff:a00:1` matches IPv4 ranges), checked on every request that comes through a proxy:
 * addresses are parsed by hand and compared as numbers, several hundred times faster than
 * `net.BlockList` (whose every check crosses into C++: ~1.6 µs here).
 */
export class AddressRanges {
  private readonly v4: { net: number; mask: number }[] = [];
  private readonly v6: { net: Uint16Array; bits: number }[] = [];

  /**
   * Adds `10.0.0.0/8`, `127.0.0.1`, `fd00::/8` or `::1`.
   * @returns false (and adds nothing) when it is none of those
   */
  add(entry: string): boolean {
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const prefix = slash < 0 ? undefined : entry.slice(slash + 1);
    if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return false;
    const v4 = parseIpv4(address);
    if (v4 >= 0) {
      const bits = prefix === undefined ? 32 : Number(prefix);
      if (bits > 32) return false;
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      this.v4.push({ net: (v4 & mask) >>> 0, mask });
      return true;
    }
    const v6 = parseIpv6(address);
    if (!v6) return false;
    const bits = prefix === undefined ? 128 : Number(prefix);
    if (bits > 128) return false;
    // An IPv4-mapped range is the IPv4 range it maps (which `has` compares mapped addresses with).
    const mapped = mappedIpv4(v6);
    if (mapped >= 0 && bits >= 96) return this.add(`${ipv4Text(mapped)}/${bits - 96}`);
    this.v6.push({ net: v6, bits });
    return true;
  }

  /**
   * Whether `address` (an address as Node or a proxy writes it) is in one of the ranges. An
   * IPv4-mapped address is its IPv4 address, in any spelling (`::ffff:10.0.0.1`, `::ffff:a00:1`).
   */
  has(address: string): boolean {
    const v4 = parseIpv4(address.startsWith('::ffff:') ? address.slice(7) : address);
    if (v4 >= 0) return this.hasIpv4(v4);
    const v6 = parseIpv6(address);
    if (!v6) return false;
    const mapped = mappedIpv4(v6);
    if (mapped >= 0) return this.hasIpv4(mapped);
    for (const range of this.v6) if (sameBits(v6, range.net, range.bits)) return true;
    return false;
  }

  private hasIpv4(v4: number): boolean {
    for (const range of this.v4) if ((v4 & range.mask) >>> 0 === range.net) return true;
    return false;
  }
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:0:0/96) carries; -1 for any other. */
function mappedIpv4(groups: Uint16Array): number {
  for (let i = 0; i < 5; i++) if (groups[i] !== 0) return -1;
  return groups[5] === 0xffff ? groups[6] * 0x10000 + groups[7] : -1;
}

function ipv4Text(v4: number): string {
  return [v4 >>> 24, (v4 >>> 16) & 0xff, (v4 >>> 8) & 0xff, v4 & 0xff].join('.');
}

/** Whether `text` is an IPv4 or IPv6 address. */
export function isAddress(text: string): boolean {
  return parseIpv4(text) >= 0 || parseIpv6(text) !== undefined;
}

/** `a.b.c.d` as an unsigned 32-bit number; -1 when it is not one (no leading zeros, each ≤ 255). */
export function parseIpv4(text: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero: ambiguous (octal), refused as Node does
      part = part * 10 + (code - 48);
      if (++digits > 3 || part > 255) return -1;
    } else return -1;
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

/** An IPv6 address as its eight 16-bit groups (an IPv4 tail and one `::` allowed); `undefined` when it is not one. */
export function parseIpv6(text: string): Uint16Array | undefined {
  if (text.length < 2 || text.indexOf(':') < 0) return undefined;
  const zone = text.indexOf('%');
  const address = zone < 0 ? text : text.slice(0, zone);
  const double = address.indexOf('::');
  if (double >= 0 && address.indexOf('::', double + 1) >= 0) return undefined;
  const head = double < 0 ? address : address.slice(0, double);
  const tail = double < 0 ? '' : address.slice(double + 2);
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (v4 < 0) return undefined;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const first = groups(head);
  const last = groups(tail);
  if (!first || !last) return undefined;
  // An IPv4 tail belongs at the end only.
  if (double >= 0 && head.includes('.')) return undefined;
  const count = first.length + last.length;
  if (double < 0 ? count !== 8 : count > 7) return undefined;
  const result = new Uint16Array(8);
  result.set(first, 0);
  result.set(last, 8 - last.length);
  return result;
}

function sameBits(a: Uint16Array, b: Uint16Array, bits: number): boolean {
  let group = 0;
  for (; bits >= 16; bits -= 16, group++) if (a[group] !== b[group]) return false;
  if (bits === 0) return true;
  const mask = (0xffff << (16 - bits)) & 0xffff;
  return (a[group] & mask) === (b[group] & mask);
}
