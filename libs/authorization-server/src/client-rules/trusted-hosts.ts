/** A host name or IP literal, in ASCII, with `*.` or `.` in front for every host under it. */
const ENTRY = /^(\*\.|\.)?(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/;

/** An entry of the list, read: the host (lower case, ASCII), and whether it stands for every host under it. */
function parse(entry: unknown): { host: string; under: boolean } | undefined {
  if (typeof entry !== 'string') return undefined;
  const raw = entry.trim().toLowerCase().replace(/\.$/, '');
  const prefix = /^(\*\.|\.)/.exec(raw)?.[0] ?? '';
  const name = raw.slice(prefix.length);
  // A scheme, port, path, query or credentials: not a host name.
  if (!name || /[/?#@\s]/.test(name) || (name.includes(':') && !(name.startsWith('[') && name.endsWith(']'))))
    return undefined;
  if (!URL.canParse(`https://${name}/`)) return undefined;
  const host = new URL(`https://${name}/`).hostname;
  return ENTRY.test(prefix + host) ? { host, under: prefix !== '' } : undefined;
}

/**
 * The hosts whose Client ID Metadata Documents an organisation accepts (a CIMD trust policy):
 * `clients.corp.example` is that host; `*.corp.example` (or `.corp.example`) is every host under
 * `corp.example`, not `corp.example` itself. Compared on the URL's host, in lower case and ASCII
 * (an internationalised name as punycode), without a final dot.
 */
export class TrustedHosts {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];

  /** @param entries checked first with `TrustedHosts.problem`; one that is not a host name is left out */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const parsed = parse(entry);
      if (parsed?.under) this.suffixes.push(`.${parsed.host}`);
      else if (parsed) this.exact.add(parsed.host);
    }
  }

  /** What is wrong with an entry of the list, or `undefined`. */
  static problem(entry: unknown): string | undefined {
    return parse(entry)
      ? undefined
      : 'must be a host name (no scheme, port or path), or *.domain for every host under it';
  }

  /** Whether the document at `url` comes from a trusted host. */
  trusts(url: URL): boolean {
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    return this.exact.has(host) || this.suffixes.some((suffix) => host.endsWith(suffix));
  }
}
