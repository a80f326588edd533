import type { AddressClass } from './address-class';

/** How a class is named in a message. */
const CLASS_NAMES: Record<AddressClass, string> = {
  public: 'public',
  loopback: 'loopback',
  unspecified: 'unspecified ("this host")',
  private: 'private (RFC 1918)',
  cgnat: 'carrier-grade NAT (100.64.0.0/10)',
  'unique-local': 'unique-local IPv6',
  'link-local': 'link-local',
  metadata: 'cloud metadata',
  multicast: 'multicast',
  documentation: 'documentation-only',
  benchmark: 'benchmarking-only',
  reserved: 'reserved',
};

/** Which option sets a limit (none named: the caller's own, or a fixed one). */
const setBy = (option: string | undefined): string => (option ? ` (set by ${option})` : '');

/** The messages of outbound requests and their refusals. @internal */
export const OutboundMessages = {
  className: (kind: AddressClass): string => CLASS_NAMES[kind],

  /** `host` is (or resolves to) `address`, of a class the policy does not reach. */
  refusedClass: (host: string, address: string, kind: AddressClass, reach: string): string =>
    `${host === address ? `${address} is` : `"${host}" resolves to ${address},`} a ${CLASS_NAMES[kind]} address, which ${reach} may not reach`,

  refusedClassFix: (host: string, address: string, kind: AddressClass, allowOption: string | undefined): string =>
    kind === 'metadata'
      ? allowOption
        ? `a cloud metadata address is reached only when named by address: ${allowOption}: ['${address}']`
        : 'a cloud metadata address is reached only by a URL that names the address itself'
      : allowOption
        ? `allow it with ${allowOption}: ['${host}'] if it is meant`
        : 'point it at a public host',

  refusedOwnPort: (host: string, port: number): string =>
    `${host}:${port} is this host itself (its own port on its own address: its admin API, metrics and MCP endpoint)`,

  refusedOwnPortFix: (): string => 'point it at another host or port; the host is never its own upstream',

  unresolved: (host: string, code: string | undefined): string =>
    `the host "${host}" cannot be resolved${code ? ` (${code})` : ''}`,

  timedOut: (purpose: string, host: string, timeoutMs: number, option: string | undefined): string =>
    `${purpose} at ${host} gave no whole answer within ${timeoutMs} ms${setBy(option)}`,

  tooLarge: (purpose: string, host: string, maxBytes: number, option: string | undefined): string =>
    `${purpose} at ${host} answered more than ${maxBytes} bytes${setBy(option)}`,

  unreachable: (purpose: string, host: string, code: string | undefined): string =>
    `${purpose} at ${host} could not be reached${code ? ` (${code})` : ''}`,
};
