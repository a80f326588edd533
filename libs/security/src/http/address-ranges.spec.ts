import { isIP } from 'node:net';
import { AddressRanges, isAddress, parseIpv4, parseIpv6 } from './address-ranges';

describe('AddressRanges', () => {
  it('matches IPv4 addresses and ranges, IPv4-mapped IPv6 addresses included', () => {
    const ranges = new AddressRanges();
    expect(
      ['10.0.0.0/8', '192.0.2.10', '172.16.0.0/12', '0.0.0.0/0'].slice(0, 3).map((entry) => ranges.add(entry)),
    ).toEqual([true, true, true]);
    for (const address of ['10.0.0.1', '10.255.255.255', '192.0.2.10', '172.31.0.5', '::ffff:10.1.2.3'])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: true });
    for (const address of ['11.0.0.1', '192.0.2.11', '172.32.0.1', '::1', 'fd00::1', 'not-an-address', ''])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: false });
    // The mapped form in hexadecimal (as the URL parser writes it) and in capitals is the same address.
    for (const address of ['::ffff:a00:1', '::FFFF:10.1.2.3', '0:0:0:0:0:ffff:c000:20a', '::ffff:ac1f:5'])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: true });
    for (const address of ['::ffff:b00:1', '::ffff:0:a00:1', '::a00:1', '64:ff9b::a00:1'])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: false });
    const loopback = new AddressRanges();
    expect(loopback.add('::ffff:127.0.0.0/104')).toBe(true);
    expect(['127.0.0.1', '::ffff:7f00:1', '128.0.0.1'].map((address) => loopback.has(address))).toEqual([
      true,
      true,
      false,
    ]);
    const everyone = new AddressRanges();
    everyone.add('0.0.0.0/0');
    expect(everyone.has('203.0.113.9')).toBe(true);
  });

  it('matches IPv6 addresses and ranges, on any prefix length', () => {
    const ranges = new AddressRanges();
    for (const entry of ['fd00::/8', '::1', '2001:db8:cafe::/48', '2001:db8:0:2::/63'])
      expect(ranges.add(entry)).toBe(true);
    // 2001:db8:0:2::/63 holds 2001:db8:0:2:… and 2001:db8:0:3:…, not 2001:db8:0:4:….
    for (const address of ['fd12:3456::1', '::1', '2001:db8:cafe:ffff::7', '2001:db8:0:3::9', 'fd00::1%eth0'])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: true });
    for (const address of ['fe00::1', '::2', '2001:db8:cafd::1', '2001:db8:0:4::1', '2001:db8:0:1::1', '10.0.0.1'])
      expect({ address, in: ranges.has(address) }).toEqual({ address, in: false });
  });

  it('refuses entries that are no address or range', () => {
    const ranges = new AddressRanges();
    for (const entry of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/8/8',
      '10.0.0.0/-1',
      'proxy',
      '',
      '1.2.3',
      '01.2.3.4',
    ])
      expect({ entry, added: ranges.add(entry) }).toEqual({ entry, added: false });
  });
});

describe('the address parsers', () => {
  it('agree with Node on what an address is', () => {
    const samples = [
      '127.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '256.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1..2.3',
      ' 1.2.3.4',
      '::',
      '::1',
      '1::',
      'fe80::1%eth0',
      '2001:db8::7',
      '2001:0db8:0000:0000:0000:0000:0000:0007',
      '::ffff:1.2.3.4',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '12345::',
      'g::1',
      '1.2.3.4::',
      '::1.2.3.4.5',
      ':1',
      '1:',
      '',
    ];
    for (const text of samples) expect({ text, address: isAddress(text) }).toEqual({ text, address: isIP(text) !== 0 });
  });

  it('read the numbers an address stands for', () => {
    expect(parseIpv4('10.1.2.3')).toBe(0x0a010203);
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    expect([...parseIpv6('2001:db8::ffff:1.2.3.4')!]).toEqual([0x2001, 0xdb8, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
  });
});
