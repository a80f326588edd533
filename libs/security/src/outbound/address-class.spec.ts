import { classifyAddress, type AddressClass } from './address-class';

/** The host a URL names, as a request would be made to it (the URL parser's normalised spelling). */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');

describe('classifyAddress', () => {
  it.each<[string, AddressClass]>([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.3.7', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::7', 'unique-local'],
    ['fec0::1', 'unique-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['198.18.0.1', 'benchmark'],
    ['198.19.255.255', 'benchmark'],
    ['2001:2::1', 'benchmark'],
    ['192.0.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['100::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::2', 'reserved'],
  ])('classifies %s as %s', (address, expected) => {
    expect(classifyAddress(address)?.class).toBe(expected);
  });

  it.each<[string, AddressClass, string, string]>([
    ['::ffff:127.0.0.1', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:7f00:1', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['0:0:0:0:0:FFFF:7F00:0001', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:169.254.169.254', 'metadata', 'ipv4-mapped', '169.254.169.254'],
    ['::ffff:a9fe:a9fe', 'metadata', 'ipv4-mapped', '169.254.169.254'],
    ['::ffff:10.0.0.1', 'private', 'ipv4-mapped', '10.0.0.1'],
    ['::ffff:8.8.8.8', 'public', 'ipv4-mapped', '8.8.8.8'],
    ['::ffff:0:7f00:1', 'loopback', 'ipv4-translated', '127.0.0.1'],
    ['::127.0.0.1', 'loopback', 'ipv4-compatible', '127.0.0.1'],
    ['::7f00:1', 'loopback', 'ipv4-compatible', '127.0.0.1'],
    ['::8.8.8.8', 'reserved', 'ipv4-compatible', '8.8.8.8'],
    ['64:ff9b::127.0.0.1', 'loopback', 'nat64', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64', '169.254.169.254'],
    ['64:ff9b::c0a8:101', 'private', 'nat64', '192.168.1.1'],
    ['64:ff9b::808:808', 'public', 'nat64', '8.8.8.8'],
    ['64:ff9b:1::7f00:1', 'loopback', 'nat64-local', '127.0.0.1'],
    ['64:ff9b:1::808:808', 'private', 'nat64-local', '8.8.8.8'],
    ['2002:7f00:1::', 'loopback', '6to4', '127.0.0.1'],
    ['2002:a9fe:a9fe::1', 'metadata', '6to4', '169.254.169.254'],
    ['2002:808:808::1', 'public', '6to4', '8.8.8.8'],
    // Teredo: the client's address with its bits inverted (127.0.0.1 → 80ff:fffe).
    ['2001:0:808:808::80ff:fffe', 'loopback', 'teredo', '127.0.0.1'],
    ['2001:0:a00:1::f7f7:f7f7', 'private', 'teredo', '10.0.0.1'],
  ])('classifies %s as %s: it carries %s %s', (address, expected, form, ipv4) => {
    expect(classifyAddress(address)).toMatchObject({ class: expected, family: 6, embedded: { form, ipv4 } });
  });

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://017700000001/', 'loopback'],
    ['http://0/', 'unspecified'],
    ['http://2852039166/', 'metadata'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'metadata'],
    ['http://0251.0376.0251.0376/', 'metadata'],
    ['http://169.254.43518/', 'metadata'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'loopback'],
    ['http://[::FFFF:A9FE:A9FE]/', 'metadata'],
    ['http://[0000:0000:0000:0000:0000:0000:0000:0001]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[64:ff9b::7f00:1]/', 'loopback'],
    ['http://[fd00:ec2::254]/', 'metadata'],
  ])('classifies the host of %s, however it is spelled, as %s', (url, expected) => {
    expect(classifyAddress(hostOf(url))?.class).toBe(expected);
  });

  it('writes an address canonically, and says when text is no address', () => {
    expect(classifyAddress('[::FFFF:7F00:0001]')).toEqual({
      class: 'loopback',
      address: '::ffff:7f00:1',
      family: 6,
      embedded: { form: 'ipv4-mapped', ipv4: '127.0.0.1' },
    });
    expect(classifyAddress('FE80::1%eth0')).toEqual({ class: 'link-local', address: 'fe80::1', family: 6 });
    for (const text of ['localhost', 'example.com', '0177.0.0.1', '127.1', '2130706433', '1.2.3.256', '', ':::1'])
      expect([text, classifyAddress(text)]).toEqual([text, undefined]);
  });
});
